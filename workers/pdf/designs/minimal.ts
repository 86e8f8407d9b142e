import type { BrochureModel } from '../brochureModel.js';
import { coverFacts, esc, heroOrPanel, logoBadge, type BrochureDesign } from './parts.js';

/** White space and one typeface: light tracked capitals, hairlines, a sage accent used sparingly. */
export const minimalDesign: BrochureDesign = {
  css: `
:root { --ink: #2b2b2b; --muted: #8a8a86; --heading: #1c1c1c; --accent: #6f8467; --accent-2: #a3b39b; --on-accent: #fff;
  --paper: #ffffff; --panel: #f6f6f3; --rule: #e6e6e1; --branding-bg: #f6f6f3; --branding-ink: #1c1c1c;
  --display-font: var(--body-font); }
body { font-weight: 300; }
.inner { padding: 26mm 22mm 22mm; }
.page-foot { inset-inline: 22mm; }
.page-head { margin-bottom: 12mm; }
.page-head h2 { font-weight: 300; font-size: 17pt; letter-spacing: 0.32em; text-transform: uppercase; }
[dir="rtl"] .page-head h2 { letter-spacing: 0; font-size: 22pt; font-weight: 400; }
.overview-text .lead { font-weight: 300; font-size: 12.5pt; }
.facts { background: transparent; padding: 0; }
.facts dd { font-weight: 500; }
.plan { border: none; background: var(--panel); }
.plan-facts h3, .payment-plan h3, .place h3, .agent-name, .branding h2 { font-weight: 300; letter-spacing: 0.06em; }
.split-bar { height: 2mm; }
.split-bar span b { display: none; }
.tick { width: 1.6mm; height: 1.6mm; border-radius: 50%; transform: none; }
.cover { padding: 20mm; display: flex; flex-direction: column; }
.cover-picture { height: 170mm; flex: none; }
.hero-missing { background: var(--panel); }
.cover-meta { display: flex; justify-content: space-between; align-items: flex-start; margin-top: 13mm; }
.cover h1 { font-weight: 300; font-size: 27pt; letter-spacing: 0.22em; text-transform: uppercase; line-height: 1.25; color: var(--heading); }
[dir="rtl"] .cover h1 { letter-spacing: 0; }
.cover-tagline { margin-top: 3mm; font-size: 9pt; letter-spacing: 0.2em; text-transform: uppercase; color: var(--muted); }
[dir="rtl"] .cover-tagline { letter-spacing: 0; }
.cover-logo .logo { height: 13mm; width: auto; }
.cover-facts { margin-top: auto; display: flex; gap: 12mm; border-top: 0.25mm solid var(--rule); padding-top: 5mm; }
.cover-fact { display: flex; flex-direction: column; gap: 1mm; }
.cover-fact span { font-size: 6.5pt; letter-spacing: 0.22em; text-transform: uppercase; color: var(--muted); }
[dir="rtl"] .cover-fact span { letter-spacing: 0; font-size: 8pt; }
.cover-fact strong { font-size: 11pt; font-weight: 500; }
`,
  cover: (model: BrochureModel) => `<section class="page cover">
  ${heroOrPanel(model, 'cover-picture')}
  <div class="cover-meta">
    <div><h1>${esc(model.name)}</h1>${model.tagline ? `<p class="cover-tagline">${esc(model.tagline)}</p>` : ''}</div>
    ${logoBadge(model, 'cover-logo')}
  </div>
  <div class="cover-facts">${coverFacts(model)}</div>
</section>`,
};
