import { PDF_SECTIONS, type PdfSection } from '../../../src/pdf/pdfOptions.js';
import type { BrochureImage, BrochureModel, BrochurePaymentPlan } from '../brochureModel.js';
import { fontFaces, fontStacks } from './fonts.js';

/** What makes a design: its own cover and style sheet; the inner pages' structure is shared (see brochureHtml). */
export interface BrochureDesign {
  /** CSS custom properties and rules over the shared structure's classes. */
  css: string;
  cover(model: BrochureModel): string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content and attribute values. */
export const esc = (text: string): string => text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);

export const img = (image: BrochureImage, className: string, alt = ''): string =>
  `<img class="${className}" src="${image.src}" width="${image.width}" height="${image.height}" alt="${esc(alt)}">`;

/**
 * A picture that fills its box, cropped to it as `object-fit: cover` would, but drawn whole inside a clipping
 * frame: Chromium prints a picture drawn from a part of itself (object-fit: cover, background-size: cover) on a
 * slow path, about twenty times slower than the whole picture (README, Performance, PDF brochures).
 */
export const coverImg = (image: BrochureImage, className: string, alt = ''): string =>
  `<div class="${className} cover-frame" style="--picture-aspect: ${(image.width / image.height).toFixed(4)}">${img(image, 'cover-fill', alt)}</div>`;

/** Pictures on a page beside the text, when the gallery has them: the hero first, then the gallery in order. */
export function moodImage(model: BrochureModel, index: number): BrochureImage | null {
  const pictures = [...(model.hero ? [model.hero] : []), ...model.gallery.map((item) => item.image)];
  return pictures.length === 0 ? null : pictures[index % pictures.length]!;
}

function chunks<Item>(items: readonly Item[], size: number): Item[][] {
  const result: Item[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}

/** Payment plans on pages of at most `rows` table rows, a plan never cut between two pages. */
function paymentPlanPages(plans: readonly BrochurePaymentPlan[], rows: number): BrochurePaymentPlan[][] {
  const pages: BrochurePaymentPlan[][] = [];
  let current: BrochurePaymentPlan[] = [];
  let used = 0;
  for (const plan of plans) {
    const needs = plan.milestones.length + 3;
    if (current.length > 0 && used + needs > rows) {
      pages.push(current);
      current = [];
      used = 0;
    }
    current.push(plan);
    used += needs;
  }
  if (current.length > 0) pages.push(current);
  return pages;
}

interface PageOptions {
  section: string;
  title: string;
  body: string;
}

/** One A4 page of the shared structure: a heading, the body, and a footer with the project's name and the page number. */
function page(model: BrochureModel, options: PageOptions, number: () => number): string {
  const n = number();
  return `<section class="page inner page-${options.section}">
  <header class="page-head"><span class="page-index">${String(n).padStart(2, '0')}</span><h2>${esc(options.title)}</h2></header>
  <div class="page-body">${options.body}</div>
  <footer class="page-foot"><span>${esc(model.name)}</span><span>${n}</span></footer>
</section>`;
}

function overviewBody(model: BrochureModel): string {
  const [lead, ...rest] = model.overview;
  const picture = moodImage(model, 1);
  return `<div class="overview">
  <div class="overview-text">
    ${lead ? `<p class="lead">${esc(lead)}</p>` : ''}
    ${rest.map((paragraph) => `<p>${esc(paragraph)}</p>`).join('\n')}
    ${picture ? coverImg(picture, 'overview-picture') : ''}
  </div>
  <aside class="facts">
    <h3>${esc(model.labels.keyFacts)}</h3>
    <dl>${model.keyFacts.map((fact) => `<div class="fact"><dt>${esc(fact.label)}</dt><dd>${esc(fact.value)}</dd></div>`).join('')}</dl>
    ${model.developerLogo ? `<div class="facts-logo">${img(model.developerLogo, 'logo', model.developerName ?? '')}</div>` : ''}
  </aside>
</div>`;
}

function galleryBody(items: BrochureModel['gallery']): string {
  return `<div class="gallery gallery-${items.length}">${items
    .map(
      (item, index) =>
        `<figure class="shot shot-${index}">${coverImg(item.image, 'cover-fit', item.caption ?? '')}${item.caption ? `<figcaption>${esc(item.caption)}</figcaption>` : ''}</figure>`,
    )
    .join('')}</div>`;
}

function floorPlansBody(model: BrochureModel, plans: BrochureModel['floorPlans']): string {
  const { labels } = model;
  return `<div class="plans plans-${plans.length}">${plans
    .map(
      (plan) => `<article class="plan">
    <div class="plan-drawing">${plan.image ? img(plan.image, 'contain-fit', plan.title) : ''}</div>
    <div class="plan-facts">
      <h3>${esc(plan.title)}</h3>
      <dl>
        ${plan.unitType ? `<div><dt>${esc(labels.unitType)}</dt><dd>${esc(plan.unitType)}</dd></div>` : ''}
        ${plan.area ? `<div><dt>${esc(labels.area)}</dt><dd>${esc(plan.area)}</dd></div>` : ''}
        <div><dt>${esc(labels.price)}</dt><dd>${esc(plan.price ?? labels.priceOnRequest)}</dd></div>
      </dl>
    </div>
  </article>`,
    )
    .join('')}</div>`;
}

/** Table rows a payment-plan page holds; a page using at most half of them also shows a picture below. */
const PAYMENT_PLAN_ROWS = 22;

function paymentPlansBody(model: BrochureModel, plans: readonly BrochurePaymentPlan[]): string {
  const { labels } = model;
  const rows = plans.reduce((sum, plan) => sum + plan.milestones.length + 3, 0);
  const picture = rows <= PAYMENT_PLAN_ROWS / 2 ? moodImage(model, 3) : null;
  return `<div class="payment-plans">${plans
    .map(
      (plan) => `<div class="payment-plan">
  <h3>${esc(plan.name)}</h3>
  <div class="split-bar">${plan.milestones.map((milestone) => `<span style="flex:${Number.parseFloat(milestone.percent) || 1}"><b>${esc(milestone.percent)}</b></span>`).join('')}</div>
  <table>
    <thead><tr><th>${esc(labels.milestone)}</th><th>${esc(labels.due)}</th><th class="num">${esc(labels.share)}</th></tr></thead>
    <tbody>${plan.milestones
      .map(
        (milestone) =>
          `<tr><td>${esc(milestone.label)}</td><td>${esc(milestone.due)}</td><td class="num">${esc(milestone.percent)}</td></tr>`,
      )
      .join('')}</tbody>
    <tfoot><tr><td colspan="2">${esc(labels.total)}</td><td class="num">${esc(plan.total)}</td></tr></tfoot>
  </table>
</div>`,
    )
    .join('\n')}${picture ? `<div class="payment-picture">${coverImg(picture, 'cover-fit')}</div>` : ''}</div>`;
}

function amenitiesBody(model: BrochureModel): string {
  const picture = moodImage(model, 2);
  return `<div class="amenities">
  ${picture ? `<div class="amenities-picture">${coverImg(picture, 'cover-fit')}</div>` : ''}
  <ul class="amenity-list">${model.amenities.map((name) => `<li><span class="tick"></span>${esc(name)}</li>`).join('')}</ul>
</div>`;
}

function locationBody(model: BrochureModel): string {
  const { labels, location } = model;
  const map = location.map
    ? `<figure class="map">${coverImg(location.map, 'cover-fit', labels.location)}<figcaption class="attribution">${esc(labels.mapAttribution)}</figcaption></figure>`
    : `<div class="map map-missing"><div><strong>${esc(labels.mapUnavailable)}</strong>${location.coordinates ? `<span dir="ltr">${esc(location.coordinates)}</span>` : ''}</div></div>`;
  return `<div class="location">
  ${map}
  <div class="location-facts">
    <div class="place">
      ${location.placeName ? `<h3>${esc(location.placeName)}</h3>` : ''}
      ${location.coordinates ? `<p><span class="muted">${esc(labels.coordinates)}</span> <span dir="ltr">${esc(location.coordinates)}</span></p>` : ''}
    </div>
    ${
      location.nearby.length > 0
        ? `<div class="nearby"><h4>${esc(labels.nearby)}</h4><ul>${location.nearby
            .map((place) => `<li><span>${esc(place.name)}</span><span class="muted">${esc(place.distance)}</span></li>`)
            .join('')}</ul></div>`
        : ''
    }
  </div>
</div>`;
}

function agentBody(model: BrochureModel): string {
  const { labels } = model;
  const agent = model.agent!;
  const contact = (label: string, value: string) => `<div class="contact"><dt>${esc(label)}</dt><dd dir="ltr">${esc(value)}</dd></div>`;
  return `<div class="agent">
  ${agent.portrait ? `<div class="portrait">${coverImg(agent.portrait, 'cover-fit', agent.name)}</div>` : `<div class="portrait portrait-initials"><span>${esc(initials(agent.name))}</span></div>`}
  <div class="agent-card">
    <p class="eyebrow">${esc(labels.yourAgent)}</p>
    <h3 class="agent-name">${esc(agent.name)}</h3>
    <p class="agent-company">${esc(agent.company)}</p>
    <dl class="contacts">
      ${contact(labels.phone, agent.phone)}
      ${contact(labels.email, agent.email)}
      ${agent.whatsapp ? contact(labels.whatsapp, agent.whatsapp) : ''}
    </dl>
  </div>
</div>
<p class="disclaimer">${esc(labels.disclaimer)}</p>`;
}

function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]!.toUpperCase())
    .join('');
}

function brandingPage(model: BrochureModel): string {
  const { labels } = model;
  return `<section class="page branding">
  <div class="branding-inner">
    ${model.developerLogo ? `<div class="branding-logo">${img(model.developerLogo, 'logo', model.developerName ?? '')}</div>` : ''}
    <p class="eyebrow">${esc(labels.brochure)}</p>
    <h2>${esc(model.name)}</h2>
    ${model.tagline ? `<p class="branding-tagline">${esc(model.tagline)}</p>` : ''}
    ${model.agent ? `<p class="branding-agent">${esc(labels.preparedBy)} ${esc(model.agent.name)} · ${esc(model.agent.company)}<br><span dir="ltr">${esc(model.agent.phone)} · ${esc(model.agent.email)}</span></p>` : ''}
    <p class="disclaimer">${esc(labels.disclaimer)}</p>
  </div>
</section>`;
}

/** The inner pages of one section, in print order; none when the section has nothing to show. */
function sectionPages(model: BrochureModel, section: Exclude<PdfSection, 'cover'>, number: () => number): string[] {
  const { labels } = model;
  const one = (title: string, body: string) => [page(model, { section, title, body }, number)];
  switch (section) {
    case 'overview':
      return model.overview.length > 0 || model.keyFacts.length > 0 ? one(labels.overview, overviewBody(model)) : [];
    case 'gallery':
      return chunks(model.gallery, 5).map((items) => page(model, { section, title: labels.gallery, body: galleryBody(items) }, number));
    case 'floor_plans':
      return chunks(model.floorPlans, 2).map((plans) =>
        page(model, { section, title: labels.floorPlans, body: floorPlansBody(model, plans) }, number),
      );
    case 'payment_plans':
      return paymentPlanPages(model.paymentPlans, PAYMENT_PLAN_ROWS).map((plans) =>
        page(model, { section, title: labels.paymentPlans, body: paymentPlansBody(model, plans) }, number),
      );
    case 'amenities':
      return model.amenities.length > 0 ? one(labels.amenities, amenitiesBody(model)) : [];
    case 'location':
      return one(labels.location, locationBody(model));
    case 'agent':
      return model.agent ? one(labels.agent, agentBody(model)) : [];
  }
}

/** The structure every design shares: A4 pages without margins, each section on pages of its own. */
const BASE_CSS = `
@page { size: A4; margin: 0; }
* { box-sizing: border-box; margin: 0; padding: 0; }
html, body { width: 210mm; }
body { font-family: var(--body-font); color: var(--ink); background: var(--paper); font-size: 10pt; line-height: 1.5;
  -webkit-print-color-adjust: exact; print-color-adjust: exact; font-kerning: normal; }
[dir="rtl"] body { line-height: 1.75; }
.page { position: relative; width: 210mm; height: 297mm; overflow: hidden; break-after: page; break-inside: avoid; background: var(--paper); }
.page:last-child { break-after: auto; }
img { display: block; max-width: 100%; }
.cover-fit { width: 100%; height: 100%; }
.cover-frame { position: relative; overflow: hidden; container-type: size; }
.cover-fill { position: absolute; left: 50%; top: 50%; width: max(100cqw, calc(100cqh * var(--picture-aspect))); height: auto;
  max-width: none; transform: translate(-50%, -50%); }
.contain-fit { width: 100%; height: 100%; object-fit: contain; }
.muted { color: var(--muted); }
.inner { padding: 22mm 18mm 20mm; display: flex; flex-direction: column; }
.page-head { display: flex; align-items: baseline; gap: 5mm; margin-bottom: 9mm; }
.page-head h2 { font-family: var(--display-font); font-weight: 500; font-size: 26pt; line-height: 1.1; color: var(--heading); }
.page-index { font-size: 9pt; font-weight: 600; letter-spacing: 0.14em; color: var(--accent); }
.page-body { flex: 1; min-height: 0; position: relative; }
.page-foot { position: absolute; bottom: 9mm; inset-inline: 18mm; display: flex; justify-content: space-between;
  font-size: 7.5pt; letter-spacing: 0.08em; text-transform: uppercase; color: var(--muted); }
[dir="rtl"] .page-foot { letter-spacing: 0; }
.eyebrow { font-size: 8pt; font-weight: 600; letter-spacing: 0.18em; text-transform: uppercase; color: var(--accent); }
[dir="rtl"] .eyebrow, [dir="rtl"] .facts h3, [dir="rtl"] .facts dt, [dir="rtl"] .plan-facts dt, [dir="rtl"] .contact dt, [dir="rtl"] th,
  [dir="rtl"] .nearby h4 { letter-spacing: 0; font-size: 9pt; }
/* Editors' texts are mostly in Latin letters: each paragraph or value takes the direction of its own first letter,
   so a full stop or a unit stays where it belongs, while the Arabic page keeps everything aligned to the right. */
[dir="rtl"] :is(p, dd, td, li, h1, h3, figcaption, .cover-fact strong) { unicode-bidi: plaintext; }
[dir="rtl"] :is(dd, td, li, h1, h3, .cover-fact strong) { text-align: right; }
[dir="rtl"] td.num { text-align: left; }

.overview { display: grid; grid-template-columns: 1fr 62mm; gap: 10mm; height: 100%; }
.overview-text p { margin-bottom: 3.2mm; text-align: justify; hyphens: auto; }
.overview-text .lead { font-family: var(--display-font); font-size: 13pt; line-height: 1.45; color: var(--heading); text-align: start; }
.overview-picture { width: 100%; height: 62mm; margin-top: 6mm; }
.facts { background: var(--panel); padding: 7mm 6mm; align-self: start; }
.facts h3 { font-size: 8pt; letter-spacing: 0.18em; text-transform: uppercase; color: var(--accent); margin-bottom: 4mm; }
.fact { padding: 2.4mm 0; border-bottom: 0.3mm solid var(--rule); break-inside: avoid; }
.fact:last-child { border-bottom: none; }
.facts dt { font-size: 7pt; letter-spacing: 0.1em; text-transform: uppercase; color: var(--muted); }
.facts dd { font-size: 10.5pt; font-weight: 600; color: var(--heading); }
.facts-logo { margin-top: 6mm; background: #fff; padding: 3mm; display: flex; justify-content: center; }
.facts-logo .logo { height: 20mm; width: auto; object-fit: contain; }

.gallery { display: grid; grid-template-columns: 1fr 1fr; gap: 4mm; height: 100%; grid-auto-rows: 1fr; }
.gallery-5 { grid-template-rows: 1.5fr 1fr 1fr; }
.gallery-3 { grid-template-rows: 1.4fr 1fr; }
.gallery .shot-0 { grid-column: 1 / -1; }
.gallery-2 .shot-1, .gallery-4 .shot-3 { grid-column: 1 / -1; }
.shot { position: relative; overflow: hidden; break-inside: avoid; min-height: 0; }
.shot figcaption { position: absolute; bottom: 0; inset-inline: 0; padding: 2mm 3mm; font-size: 7.5pt; color: #fff;
  background: linear-gradient(transparent, rgba(0,0,0,0.55)); }

.plans { display: grid; grid-template-rows: 1fr 1fr; gap: 7mm; height: 100%; }
.plans-1 { grid-template-rows: 1fr; }
.plan { display: grid; grid-template-rows: 1fr auto; gap: 5mm; border: 0.3mm solid var(--rule); padding: 6mm 7mm 5mm; break-inside: avoid; min-height: 0; background: #fff; }
.plan-drawing { min-height: 0; height: 100%; }
.plan-facts { display: grid; grid-template-columns: 1fr auto; align-items: end; gap: 6mm; border-top: 0.3mm solid var(--rule); padding-top: 4mm; }
.plan-facts h3 { font-family: var(--display-font); font-size: 15pt; font-weight: 500; color: var(--heading); line-height: 1.2; }
.plan-facts dl { display: flex; gap: 8mm; }
.plan-facts dt { font-size: 7pt; text-transform: uppercase; letter-spacing: 0.1em; color: var(--muted); }
.plan-facts dd { font-size: 10.5pt; font-weight: 600; white-space: nowrap; }

.payment-plans { display: flex; flex-direction: column; height: 100%; }
.payment-plan { margin-bottom: 10mm; break-inside: avoid; }
.payment-picture { flex: 1 1 0; min-height: 0; max-height: 110mm; margin-top: auto; overflow: hidden; }
.payment-plan h3 { font-family: var(--display-font); font-size: 15pt; font-weight: 500; color: var(--heading); margin-bottom: 4mm; }
.split-bar { display: flex; gap: 1mm; height: 9mm; margin-bottom: 5mm; }
.split-bar span { background: var(--accent); color: var(--on-accent); display: flex; align-items: center; justify-content: center; font-size: 7.5pt; min-width: 9mm; }
.split-bar span:nth-child(2n) { background: var(--accent-2); }
table { width: 100%; border-collapse: collapse; break-inside: avoid; }
tr { break-inside: avoid; }
th { text-align: start; font-size: 7.5pt; font-weight: 600; letter-spacing: 0.1em; text-transform: uppercase; color: var(--muted);
  padding: 2mm 3mm; border-bottom: 0.5mm solid var(--heading); }
td { padding: 2.4mm 3mm; border-bottom: 0.3mm solid var(--rule); }
tbody tr:nth-child(2n) td { background: var(--panel); }
tfoot td { font-weight: 700; border-bottom: none; border-top: 0.5mm solid var(--heading); }
.num { text-align: end; font-variant-numeric: tabular-nums; white-space: nowrap; }

.amenities { display: grid; grid-template-rows: 92mm 1fr; gap: 9mm; height: 100%; }
.amenities-picture { overflow: hidden; }
.amenity-list { list-style: none; columns: 2; column-gap: 12mm; align-self: start; }
.amenity-list li { display: flex; align-items: center; gap: 3mm; padding: 2.6mm 0; border-bottom: 0.3mm solid var(--rule); break-inside: avoid; font-size: 10.5pt; }
.tick { flex: none; width: 2.4mm; height: 2.4mm; background: var(--accent); transform: rotate(45deg); }

.location { display: grid; grid-template-rows: 165mm auto; gap: 8mm; height: 100%; }
.map { position: relative; overflow: hidden; background: var(--panel); break-inside: avoid; }
.map .attribution { position: absolute; bottom: 0; inset-inline-end: 0; background: rgba(255,255,255,0.85); color: #333; font-size: 7pt; padding: 1mm 2mm; direction: ltr; }
.map-missing { display: flex; align-items: center; justify-content: center; text-align: center;
  background: repeating-linear-gradient(45deg, var(--panel), var(--panel) 4mm, transparent 4mm, transparent 8mm); border: 0.3mm solid var(--rule); }
.map-missing div { background: var(--paper); padding: 6mm 9mm; display: flex; flex-direction: column; gap: 2mm; }
.map-missing strong { font-family: var(--display-font); font-size: 14pt; font-weight: 500; color: var(--heading); }
.location-facts { display: grid; grid-template-columns: 1fr 1fr; gap: 10mm; }
.place h3 { font-family: var(--display-font); font-size: 16pt; font-weight: 500; color: var(--heading); margin-bottom: 2mm; }
.nearby h4 { font-size: 8pt; letter-spacing: 0.16em; text-transform: uppercase; color: var(--accent); margin-bottom: 2mm; }
.nearby ul { list-style: none; }
.nearby li { display: flex; justify-content: space-between; gap: 4mm; padding: 1.6mm 0; border-bottom: 0.3mm solid var(--rule); }

.agent { display: grid; grid-template-columns: 70mm 1fr; gap: 12mm; align-items: center; margin-top: 14mm; }
.portrait { width: 70mm; height: 88mm; overflow: hidden; background: var(--panel); }
.portrait-initials { display: flex; align-items: center; justify-content: center; font-family: var(--display-font); font-size: 40pt; color: var(--accent); }
.agent-name { font-family: var(--display-font); font-size: 28pt; font-weight: 500; line-height: 1.1; color: var(--heading); margin: 3mm 0 2mm; }
.agent-company { font-size: 12pt; color: var(--muted); margin-bottom: 8mm; }
.contact { display: grid; grid-template-columns: 28mm 1fr; padding: 2.6mm 0; border-top: 0.3mm solid var(--rule); }
.contact dt { font-size: 7.5pt; text-transform: uppercase; letter-spacing: 0.12em; color: var(--muted); align-self: center; }
.contact dd { font-size: 11pt; font-weight: 600; text-align: start; unicode-bidi: isolate; }
[dir="rtl"] .contact dd { text-align: right; }
.disclaimer { font-size: 7.5pt; color: var(--muted); line-height: 1.5; }
.page-agent .disclaimer { position: absolute; bottom: 0; inset-inline: 0; }

.branding { display: flex; align-items: center; justify-content: center; background: var(--branding-bg); color: var(--branding-ink); text-align: center; }
.branding-inner { width: 140mm; display: flex; flex-direction: column; align-items: center; gap: 5mm; }
.branding-logo { background: #fff; padding: 4mm; }
.branding-logo .logo { height: 24mm; width: auto; }
.branding h2 { font-family: var(--display-font); font-size: 32pt; font-weight: 500; line-height: 1.1; }
.branding-tagline { font-size: 11pt; opacity: 0.8; }
.branding-agent { font-size: 10pt; margin-top: 8mm; }
.branding .disclaimer { color: inherit; opacity: 0.65; margin-top: 14mm; }
`;

/** The whole brochure as one self-contained HTML document: fonts and pictures inlined, no script, no address outside it. */
export function brochureHtml(model: BrochureModel, design: BrochureDesign): string {
  const fonts = fontStacks(model.language);
  let pageNumber = 0;
  const number = () => ++pageNumber;
  const pages: string[] = [];
  for (const section of PDF_SECTIONS) {
    if (!model.sections.has(section)) continue;
    if (section === 'cover') {
      number();
      pages.push(design.cover(model));
    } else {
      pages.push(...sectionPages(model, section, number));
    }
  }
  if (model.brandingPage) pages.push(brandingPage(model));
  return `<!doctype html>
<html lang="${model.language}" dir="${model.direction}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; font-src data:; style-src 'unsafe-inline'">
<title>${esc(model.name)}</title>
<style>
${fontFaces(model.language)}
:root { --body-font: ${fonts.body}; --display-font: ${fonts.display}; }
${BASE_CSS}
${design.css}
</style>
</head>
<body>
${pages.join('\n')}
</body>
</html>`;
}

/** The three facts a cover prints: price from, bedrooms and handover (or the status when no date is known). */
export function coverFacts(model: BrochureModel): string {
  const { labels } = model;
  const facts = [
    { label: labels.priceFrom, value: model.priceFrom },
    ...(model.bedroomsLabel ? [{ label: labels.bedrooms, value: model.bedroomsLabel }] : []),
    model.handoverLabel ? { label: labels.handover, value: model.handoverLabel } : { label: labels.status, value: model.statusLabel },
  ];
  return facts.map((fact) => `<div class="cover-fact"><span>${esc(fact.label)}</span><strong>${esc(fact.value)}</strong></div>`).join('');
}

/** The hero picture, or a plain panel in the design's colours when the project has no picture. */
export const heroOrPanel = (model: BrochureModel, className: string): string =>
  model.hero ? coverImg(model.hero, `${className} cover-fit`, model.name) : `<div class="${className} hero-missing"></div>`;

export const logoBadge = (model: BrochureModel, className: string): string =>
  model.developerLogo ? `<div class="${className}">${img(model.developerLogo, 'logo', model.developerName ?? '')}</div>` : '';
