import type { PdfTemplate } from '../../../src/pdf/pdfOptions.js';
import { boldDesign } from './bold.js';
import { classicDesign } from './classic.js';
import { editorialDesign } from './editorial.js';
import { minimalDesign } from './minimal.js';
import type { BrochureDesign } from './parts.js';

export const BROCHURE_DESIGNS: Record<PdfTemplate, BrochureDesign> = {
  classic: classicDesign,
  editorial: editorialDesign,
  minimal: minimalDesign,
  bold: boldDesign,
};
