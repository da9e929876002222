// The email template preview as mail clients show a message: nothing named in the pack's HTML is
// fetched from a server unless the author asks (a remote image is a tracking pixel: merely opening
// someone's pack would tell their server). The preview document carries a Content-Security-Policy
// that allows only what is inside it (inline styles, data: images and fonts); the pack's own email
// images (core's emailImageAddresses: the address a template writes for an email_image) are shown
// from the bytes the pack carries, as installing puts the uploaded copy's address there.
import { emailImageAddresses, type Asset } from '@setup-pack/core';
import { isObj, type Obj } from './json.js';

/** Nothing from the network: the document's own inline styles, and images and fonts it carries as data. */
export const PREVIEW_CSP = "default-src 'none'; img-src data: blob:; font-src data:; style-src 'unsafe-inline'; form-action 'none'";
/** After "Load remote images": images (and CSS backgrounds) from any http(s) address too; nothing else. */
export const PREVIEW_CSP_REMOTE_IMAGES =
  "default-src 'none'; img-src * data: blob:; font-src data:; style-src 'unsafe-inline'; form-action 'none'";

/** The template's HTML with each email image the pack carries shown from its bytes (a data: address) where the template writes its sourceUrl. */
export function embedEmailImages(html: string, assets: unknown): string {
  const list = Array.isArray(assets) ? assets.filter(isObj) : [];
  for (const { sourceUrl, asset } of emailImageAddresses(list as unknown as Asset[])) {
    const { data, mimeType } = asset as unknown as Obj;
    if (typeof data !== 'string' || data === '') continue;
    const type = typeof mimeType === 'string' && /^[\w.+-]+\/[\w.+-]+$/.test(mimeType) ? mimeType : 'application/octet-stream';
    html = html.split(sourceUrl).join(`data:${type};base64,${data}`);
  }
  return html;
}

/**
 * The preview document: the HTML with the policy as its first element (after a doctype, which must
 * stay first to keep the author's rendering mode), so the parser puts it in the head before anything
 * that could load. A policy the author's HTML adds can only narrow it (policies combine).
 */
export function withPolicy(html: string, policy: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
  const doctype = /^\uFEFF?\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? `${doctype[0]}${meta}${html.slice(doctype[0].length)}` : `${meta}${html}`;
}

/** What a preview without remote loads leaves out: how many distinct remote addresses of images, and of anything else (stylesheets, fonts, frames, media…). */
export interface RemoteResources {
  images: string[];
  other: string[];
}

/** An address that would be fetched from a server (a relative one resolves against the editor's own). */
function fetched(url: string): boolean {
  const u = url.trim();
  return u !== '' && !/^(data|blob|cid|about|javascript|mailto|tel):/i.test(u) && !u.startsWith('#');
}

const CSS_URL = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)/gi;
const CSS_IMPORT = /@import\s+(?:url\(\s*)?(?:"([^"]*)"|'([^']*)'|([^;'"\s)]+))/gi;

/** The addresses a piece of CSS loads: `@import`s and `@font-face` sources as other, every other `url()` as an image. */
export function cssAddresses(css: string, into: RemoteResources): void {
  const fonts: [number, number][] = [];
  for (const m of css.matchAll(/@font-face\s*\{[^}]*\}/gi)) fonts.push([m.index, m.index + m[0].length]);
  const imports = new Set<number>();
  for (const m of css.matchAll(CSS_IMPORT)) {
    const url = m[1] ?? m[2] ?? m[3] ?? '';
    if (fetched(url)) into.other.push(url);
    // The url( of an import is not an image as well.
    const inner = m[0].search(/url\(/i);
    if (inner >= 0) imports.add(m.index + inner);
  }
  for (const m of css.matchAll(CSS_URL)) {
    if (imports.has(m.index)) continue;
    const url = m[1] ?? m[2] ?? m[3] ?? '';
    if (!fetched(url)) continue;
    (fonts.some(([a, b]) => m.index >= a && m.index < b) ? into.other : into.images).push(url);
  }
}

const srcsetUrls = (v: string) =>
  v
    .split(',')
    .map((c) => c.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);

/** Every address the parsed preview document would fetch, each once, as an image or otherwise. */
export function remoteResources(doc: Document): RemoteResources {
  const found: RemoteResources = { images: [], other: [] };
  const add = (kind: 'images' | 'other', url: string | null | undefined) => {
    if (url && fetched(url)) found[kind].push(url.trim());
  };
  for (const el of doc.querySelectorAll('*')) {
    const tag = el.localName;
    const a = (n: string) => el.getAttribute(n);
    if (tag === 'img' || (tag === 'input' && a('type')?.toLowerCase() === 'image')) {
      add('images', a('src'));
      for (const u of srcsetUrls(a('srcset') ?? '')) add('images', u);
    } else if (tag === 'source') {
      const inPicture = el.parentElement?.localName === 'picture';
      add(inPicture ? 'images' : 'other', a('src'));
      for (const u of srcsetUrls(a('srcset') ?? '')) add(inPicture ? 'images' : 'other', u);
    } else if (tag === 'video') {
      add('images', a('poster'));
      add('other', a('src'));
    } else if (tag === 'image' || tag === 'feimage') {
      add('images', a('href') ?? el.getAttributeNS('http://www.w3.org/1999/xlink', 'href'));
    } else if (['audio', 'track', 'iframe', 'frame', 'embed', 'script'].includes(tag)) add('other', a('src'));
    else if (tag === 'object') add('other', a('data'));
    else if (tag === 'link' && /\b(stylesheet|icon|preload|prefetch|modulepreload|manifest|import)\b/i.test(a('rel') ?? ''))
      add('other', a('href'));
    else if (tag === 'style') cssAddresses(el.textContent ?? '', found);
    else if (tag === 'meta' && a('http-equiv')?.toLowerCase() === 'refresh') {
      const url = /url\s*=\s*['"]?([^'"]+)/i.exec(a('content') ?? '')?.[1];
      add('other', url);
    }
    add('images', a('background'));
    const style = a('style');
    if (style) cssAddresses(style, found);
  }
  return { images: [...new Set(found.images)], other: [...new Set(found.other)] };
}
