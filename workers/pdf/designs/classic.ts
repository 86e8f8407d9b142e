import type { BrochureModel } from '../brochureModel.js';
import { coverFacts, esc, heroOrPanel, logoBadge, type BrochureDesign } from './parts.js';

/** Navy and brass, serif headings: the full-bleed photograph with a card of facts, as developers' sales brochures are. */
export const classicDesign: BrochureDesign = {
  css: `
:root { --ink: #27303d; --muted: #6b7380; --heading: #13233f; --accent: #a8834a; --accent-2: #c9a66b; --on-accent: #fff;
  --paper: #fbfaf7; --panel: #f1ede4; --rule: #ddd5c6; --branding-bg: #13233f; --branding-ink: #f4efe6; }
.page-head { border-bottom: 0.4mm solid var(--accent); padding-bottom: 4mm; }
.cover { background: #13233f; }
.cover-hero { position: absolute; inset: 0; height: 100%; }
.hero-missing { background: linear-gradient(160deg, #1d3560, #0b1628); }
.cover-shade { position: absolute; inset: 0; background: linear-gradient(180deg, rgba(9,18,34,0.35) 0%, rgba(9,18,34,0) 30%, rgba(9,18,34,0) 45%, rgba(9,18,34,0.85) 100%); }
.cover-logo { position: absolute; top: 14mm; inset-inline-end: 14mm; background: rgba(255,255,255,0.95); padding: 3mm; }
.cover-logo .logo { height: 16mm; width: auto; }
.cover-mark { position: absolute; top: 16mm; inset-inline-start: 16mm; color: #fff; font-size: 8pt; letter-spacing: 0.3em; text-transform: uppercase; }
[dir="rtl"] .cover-mark { letter-spacing: 0; font-size: 10pt; }
.cover-card { position: absolute; inset-inline: 16mm; bottom: 16mm; background: rgba(251,250,247,0.97); padding: 11mm 12mm 9mm; border-top: 1.2mm solid var(--accent); }
.cover-card h1 { font-family: var(--display-font); font-weight: 500; font-size: 38pt; line-height: 1.05; color: var(--heading); margin: 2mm 0 3mm; }
.cover-tagline { font-size: 11pt; color: var(--muted); margin-bottom: 7mm; }
.cover-facts { display: flex; border-top: 0.3mm solid var(--rule); padding-top: 5mm; }
.cover-fact { flex: 1; display: flex; flex-direction: column; gap: 1mm; padding-inline-end: 5mm; }
.cover-fact + .cover-fact { border-inline-start: 0.3mm solid var(--rule); padding-inline-start: 5mm; }
.cover-fact span { font-size: 7pt; letter-spacing: 0.14em; text-transform: uppercase; color: var(--muted); }
[dir="rtl"] .cover-fact span { letter-spacing: 0; font-size: 8pt; }
.cover-fact strong { font-family: var(--display-font); font-size: 14pt; font-weight: 500; color: var(--heading); }
.facts { border-top: 1mm solid var(--accent); }
`,
  cover: (model: BrochureModel) => `<section class="page cover">
  ${heroOrPanel(model, 'cover-hero')}
  <div class="cover-shade"></div>
  <div class="cover-mark">${esc(model.labels.brochure)}</div>
  ${logoBadge(model, 'cover-logo')}
  <div class="cover-card">
    <p class="eyebrow">${esc(model.statusLabel)}</p>
    <h1>${esc(model.name)}</h1>
    ${model.tagline ? `<p class="cover-tagline">${esc(model.tagline)}</p>` : ''}
    <div class="cover-facts">${coverFacts(model)}</div>
  </div>
</section>`,
};
