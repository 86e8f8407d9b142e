import type { BrochureModel } from '../brochureModel.js';
import { coverFacts, esc, heroOrPanel, logoBadge, type BrochureDesign } from './parts.js';

/** Ink-black and signal orange, heavy capitals, a photograph cut on the diagonal: made to stand out in a stack. */
export const boldDesign: BrochureDesign = {
  css: `
:root { --ink: #1b1d21; --muted: #6d717a; --heading: #0f1115; --accent: #ff5a1f; --accent-2: #1b1d21; --on-accent: #fff;
  --paper: #ffffff; --panel: #f2f2f0; --rule: #e2e2de; --branding-bg: #0f1115; --branding-ink: #fff;
  --display-font: var(--body-font); }
.page-head { border-inline-start: 2.4mm solid var(--accent); padding-inline-start: 4mm; }
.page-head h2 { font-weight: 800; font-size: 28pt; text-transform: uppercase; letter-spacing: -0.01em; }
.facts { background: #0f1115; color: #fff; }
.facts dd { color: #fff; }
.facts dt { color: #a6aab2; }
.fact { border-color: #2d3038; }
.plan-facts h3, .payment-plan h3, .place h3, .agent-name, .branding h2 { font-weight: 800; text-transform: uppercase; }
th { border-bottom-color: var(--accent); }
.cover { background: #0f1115; color: #fff; }
.cover-picture { position: absolute; inset: 0 0 auto 0; height: 178mm; clip-path: polygon(0 0, 100% 0, 100% 78%, 0 100%); }
.hero-missing { background: linear-gradient(135deg, #2a2e37, #0f1115); }
.cover-logo { position: absolute; top: 12mm; inset-inline-start: 12mm; background: #fff; padding: 3mm; }
.cover-logo .logo { height: 14mm; width: auto; }
.cover-text { position: absolute; inset-inline: 14mm; top: 180mm; }
.cover-status { display: inline-block; background: var(--accent); color: #fff; font-weight: 700; font-size: 8pt; letter-spacing: 0.18em; text-transform: uppercase; padding: 1.5mm 3mm; }
[dir="rtl"] .cover-status { letter-spacing: 0; font-size: 10pt; }
.cover h1 { font-weight: 800; font-size: 40pt; line-height: 1; text-transform: uppercase; margin: 4mm 0 3mm; letter-spacing: -0.01em; }
[dir="rtl"] .cover h1 { line-height: 1.3; }
.cover-tagline { font-size: 11pt; color: #b9bcc3; }
.cover-facts { position: absolute; inset-inline: 0; bottom: 0; display: flex; background: var(--accent); }
.cover-fact { flex: 1; padding: 6mm 8mm; display: flex; flex-direction: column; gap: 1mm; }
.cover-fact + .cover-fact { border-inline-start: 0.4mm solid rgba(255,255,255,0.35); }
.cover-fact span { font-size: 7pt; letter-spacing: 0.16em; text-transform: uppercase; font-weight: 600; opacity: 0.85; }
[dir="rtl"] .cover-fact span { letter-spacing: 0; font-size: 8.5pt; }
.cover-fact strong { font-size: 15pt; font-weight: 800; }
`,
  cover: (model: BrochureModel) => `<section class="page cover">
  ${heroOrPanel(model, 'cover-picture')}
  ${logoBadge(model, 'cover-logo')}
  <div class="cover-text">
    <span class="cover-status">${esc(model.statusLabel)}</span>
    <h1>${esc(model.name)}</h1>
    ${model.tagline ? `<p class="cover-tagline">${esc(model.tagline)}</p>` : ''}
  </div>
  <div class="cover-facts">${coverFacts(model)}</div>
</section>`,
};
