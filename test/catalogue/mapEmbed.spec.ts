import { describe, expect, it } from 'vitest';
import { alreadyCanonical, canonicalMapEmbed, servedMapEmbed } from '../../src/catalogue/mapEmbed.js';

/** What the full parse serves of an embed (the quick path must never answer otherwise). */
const fullParse = (input: string): string | null => {
  const verdict = canonicalMapEmbed(input);
  return verdict.ok ? verdict.html : null;
};

const OSM = 'https://www.openstreetmap.org/export/embed.html?bbox=55.13%2C25.07%2C55.15%2C25.09&layer=mapnik';
const GOOGLE = 'https://www.google.com/maps/embed?pb=!1m18!1m12!1m3!1d3613.5!2d55.14!3d25.08';

/** Embeds as editors send them, each accepted: their canonical forms are the quick path's inputs. */
const ACCEPTED_AS_SENT = [
  `<iframe src="${GOOGLE}" width="600" height="450" style="border:0;" allowfullscreen="" loading="lazy" referrerpolicy="no-referrer-when-downgrade"></iframe>`,
  `<iframe width="600" height="450" src="${OSM.replace('&', '&amp;')}" loading="lazy"></iframe>`,
  `<IFRAME SRC='${GOOGLE}' TITLE='Map of "Marina" & <beach>' FRAMEBORDER=0></IFRAME>`,
  `<iframe src="https://api.mapbox.com/styles/v1/me/style.html?title=false&amp;access_token=pk.x#12/25.08/55.14" width="100%" height="300px"></iframe>`,
  `<iframe src="https://www.bing.com/maps/embed?h=400&amp;w=500&amp;cp=25.08~55.14" allowfullscreen="true" title="Plan &amp;amp; map"></iframe>`,
  `<iframe src="https://www.google.com/maps/embed?q=caf%C3%A9 &amp;z=3"></iframe>`,
];

const CANONICAL = ACCEPTED_AS_SENT.map((input) => fullParse(input)!);

/** Each canonical embed changed by `edit`, where the edit changes it. */
const edited = (edit: (html: string) => string): string[] => CANONICAL.map(edit).filter((html, index) => html !== CANONICAL[index]);

/** Close to canonical but not it: each must go to the full parse, which may still accept it. */
const NEAR_CANONICAL = [
  ...edited((html) => ` ${html}`),
  ...edited((html) => `${html}\n`),
  ...edited((html) => html.replace('<iframe', '<IFRAME')),
  ...edited((html) => html.replace('></iframe>', ' ></iframe>')),
  ...edited((html) => html.replace('&amp;', '&')),
  ...edited((html) => html.replace('&amp;', '&#38;')),
  ...edited((html) => html.replace('&amp;', '&AMP;')),
  ...edited((html) => html.replace('allowfullscreen', 'allowfullscreen=""')),
  ...edited((html) => html.replaceAll('"', "'")),
  // Canonical, but not printable ASCII: left to the parser, which accepts it.
  `<iframe src="${GOOGLE}" title="Carte de la marina, côté plage"></iframe>`,
  `<iframe width="600" src="${GOOGLE}"></iframe>`,
  `<iframe src="${GOOGLE}" width="600" width="700"></iframe>`,
  `<iframe src="${GOOGLE}" title="tab\tinside"></iframe>`,
  `<iframe src="${GOOGLE}" title="nul\u0000inside"></iframe>`,
  `<iframe src="${GOOGLE}" title="del\u007finside"></iframe>`,
  `<iframe src="${GOOGLE}" title="raw < and >"></iframe>`,
  `<iframe src="${GOOGLE}" title="an &unknown; reference"></iframe>`,
  `<iframe src="${GOOGLE}" title="an &amp reference unterminated"></iframe>`,
  `<iframe src="${GOOGLE}" title="é"></iframe>`,
  `<iframe src="${GOOGLE.replace('https', 'HTTPS')}"></iframe>`,
  `<iframe src="https://www.google.com:443/maps/embed?pb=1"></iframe>`,
];

/** Refused by the full parse; shaped like the canonical form wherever that is possible. */
const REFUSED = [
  '<script>alert(document.cookie)</script>',
  `<iframe src="https://evil.example/maps/embed?pb=1"></iframe>`,
  `<iframe src="https://www.google.com.evil.example/maps/embed?pb=1"></iframe>`,
  `<iframe src="http://www.google.com/maps/embed?pb=1"></iframe>`,
  `<iframe src="javascript:alert(1)"></iframe>`,
  `<iframe src="https://user:pass@www.google.com/maps/embed?pb=1"></iframe>`,
  `<iframe src="${GOOGLE}" width="wide"></iframe>`,
  `<iframe src="${GOOGLE}" frameborder="2"></iframe>`,
  `<iframe src="${GOOGLE}" loading="later"></iframe>`,
  `<iframe src="${GOOGLE}" referrerpolicy="everything"></iframe>`,
  `<iframe src="${GOOGLE}" title="${'x'.repeat(201)}"></iframe>`,
  `<iframe src="${GOOGLE}" title="line\u2028break"></iframe>`,
  `<iframe src="${GOOGLE}" onload="alert(1)"></iframe>`,
  `<iframe src="${GOOGLE}"></iframe><script>alert(1)</script>`,
  `<iframe src="${GOOGLE}"><script>alert(1)</script></iframe>`,
  `<iframe src="${GOOGLE}">`,
  `<iframe width="600"></iframe>`,
  `<iframe src=""></iframe>`,
  '',
];

describe('map embeds recognised as canonical without the HTML parser', () => {
  it('when a stored embed is already canonical, then the quick path recognises it and serves it unchanged', () => {
    expect(CANONICAL).not.toContain(null);
    for (const html of CANONICAL) {
      expect(alreadyCanonical(html)).toBe(html);
      expect(fullParse(html)).toBe(html);
      expect(servedMapEmbed(html)).toBe(html);
    }
  });

  it('when a stored embed is near canonical, then the quick path leaves it to the full parse, whose answer is served', () => {
    for (const input of NEAR_CANONICAL) {
      expect(alreadyCanonical(input), input).toBeNull();
      expect(servedMapEmbed(input), input).toBe(fullParse(input));
    }
  });

  it('when a stored embed is refused by the full parse, then the quick path does not accept it either and null is served', () => {
    for (const input of REFUSED) {
      expect(fullParse(input), input).toBeNull();
      expect(alreadyCanonical(input), input).toBeNull();
      expect(servedMapEmbed(input), input).toBeNull();
    }
  });

  it("when any of these embeds is served, then the answer is the full parse's", () => {
    for (const input of [...ACCEPTED_AS_SENT, ...CANONICAL, ...NEAR_CANONICAL, ...REFUSED]) {
      expect(servedMapEmbed(input), input).toBe(fullParse(input));
    }
  });
});
