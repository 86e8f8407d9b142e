import type { BrochureModel } from '../brochureModel.js';
import { coverFacts, esc, heroOrPanel, logoBadge, type BrochureDesign } from './parts.js';

/** A magazine feature: masthead, a framed photograph, the name set large in italic serif, terracotta rules. */
export const editorialDesign: BrochureDesign = {
  css: `
:root { --ink: #222; --muted: #77706a; --heading: #151515; --accent: #b4532a; --accent-2: #d88a5d; --on-accent: #fff;
  --paper: #fffdf9; --panel: #f5efe8; --rule: #e3d9cf; --branding-bg: #b4532a; --branding-ink: #fffdf9; }
.page-head { flex-direction: column; gap: 1mm; align-items: flex-start; }
.page-head h2 { font-style: italic; font-size: 34pt; font-weight: 400; }
[dir="rtl"] .page-head h2 { font-style: normal; }
.page-index::before { content: '— '; }
[dir="ltr"] .overview-text .lead::first-letter { font-family: var(--display-font); float: inline-start; font-size: 44pt; line-height: 0.85; padding-inline-end: 2.5mm; color: var(--accent); }
.facts { background: transparent; border-inline-start: 0.4mm solid var(--accent); padding: 0 0 0 6mm; }
[dir="rtl"] .facts { padding: 0 6mm 0 0; }
.plan { border: none; border-top: 0.6mm solid var(--heading); padding: 5mm 0 0; background: transparent; }
.cover { padding: 12mm 14mm 14mm; display: flex; flex-direction: column; }
.masthead { display: flex; justify-content: space-between; align-items: center; border-bottom: 0.6mm solid var(--heading); padding-bottom: 3mm; margin-bottom: 6mm; }
.masthead span { font-size: 8pt; letter-spacing: 0.28em; text-transform: uppercase; font-weight: 600; }
[dir="rtl"] .masthead span { letter-spacing: 0; font-size: 10pt; }
.cover-logo .logo { height: 12mm; width: auto; }
.cover-picture { height: 158mm; flex: none; }
.hero-missing { background: var(--panel); }
.cover-title { margin-top: 8mm; display: grid; grid-template-columns: 1fr auto; align-items: end; gap: 8mm; }
.cover h1 { font-family: var(--display-font); font-style: italic; font-weight: 400; font-size: 50pt; line-height: 0.98; color: var(--heading); }
[dir="rtl"] .cover h1 { font-style: normal; line-height: 1.2; }
.cover-status { font-size: 8pt; letter-spacing: 0.2em; text-transform: uppercase; color: var(--accent); white-space: nowrap; padding-bottom: 2mm; }
.cover-tagline { font-family: var(--display-font); font-size: 13pt; color: var(--muted); margin-top: 3mm; }
.cover-facts { margin-top: auto; display: grid; grid-template-columns: repeat(3, 1fr); gap: 6mm; }
.cover-fact { border-top: 0.4mm solid var(--accent); padding-top: 2.5mm; display: flex; flex-direction: column; }
.cover-fact span { font-size: 7pt; letter-spacing: 0.16em; text-transform: uppercase; color: var(--muted); }
[dir="rtl"] .cover-fact span { letter-spacing: 0; font-size: 8.5pt; }
.cover-fact strong { font-family: var(--display-font); font-size: 15pt; font-weight: 500; }
`,
  cover: (model: BrochureModel) => `<section class="page cover">
  <div class="masthead"><span>${esc(model.labels.brochure)}</span>${logoBadge(model, 'cover-logo')}</div>
  ${heroOrPanel(model, 'cover-picture')}
  <div class="cover-title"><h1>${esc(model.name)}</h1><span class="cover-status">${esc(model.statusLabel)}</span></div>
  ${model.tagline ? `<p class="cover-tagline">${esc(model.tagline)}</p>` : ''}
  <div class="cover-facts">${coverFacts(model)}</div>
</section>`,
};
