// The strict HTML sanitizer every rendered model answer passes through.
//
//   const fragment = sanitizeHtml('<p onclick="x()">hi <script>bad()</script></p>');
//   container.append(fragment);   // -> <p>hi </p>
//
// The markup is parsed in an inert document (DOMParser: no scripts run, nothing loads) and only
// allow-listed elements and attributes are copied, as new nodes of the target document, into a
// fragment; nothing parsed is ever moved into the live page and no HTML string is assigned to it.
// - Elements: ALLOWED_TAGS are kept; DROPPED_TAGS go with everything inside them (scripts, styles,
//   frames, plugins, SVG, MathML, forms' controls...); any other element is unwrapped (its text
//   stays). Elements outside the HTML namespace are dropped.
// - Attributes: only those in ALLOWED_ATTRIBUTES for that tag, each with a value check; never on*,
//   never style. `href` only on <a>, and only relative or http:, https:, mailto: (isSafeHref).
// - Every <a> gets rel="noopener noreferrer" and target="_blank".
// Under the page's Content-Security-Policy, Chromium logs a script-src-attr violation when the
// inert parse meets an on* attribute; nothing runs (the parsed document cannot run scripts) and
// the attribute is never copied.
// Pure functions of their input; safe to call any number of times.

export const ALLOWED_TAGS = new Set([
  'p', 'br', 'strong', 'em', 'code', 'pre', 'ul', 'ol', 'li', 'blockquote', 'a',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
  'caption', 'hr', 'del',
]);

// Removed together with their content: what they hold is code, styling or foreign markup, not text
// meant for the reader.
export const DROPPED_TAGS = new Set([
  'script', 'style', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'svg', 'math',
  'template', 'noscript', 'noembed', 'noframes', 'xmp', 'plaintext', 'textarea', 'select',
  'option', 'optgroup', 'button', 'input', 'link', 'meta', 'base', 'title', 'head',
  'img', 'picture', 'video', 'audio', 'source', 'track', 'canvas', 'map', 'area', 'portal',
  'dialog', 'slot', 'param', 'image',
]);

const DIGITS = /^[0-9]{1,4}$/;
const ALIGN = /^(left|right|center)$/i;
const CODE_CLASS = /^language-[A-Za-z0-9_+-]{1,32}$/;

// tag -> {attribute: check(value) -> boolean}.
export const ALLOWED_ATTRIBUTES = {
  a: {href: (v) => isSafeHref(v), title: () => true},
  code: {class: (v) => CODE_CLASS.test(v)},
  ol: {start: (v) => DIGITS.test(v)},
  th: {align: (v) => ALIGN.test(v), colspan: (v) => DIGITS.test(v), rowspan: (v) => DIGITS.test(v)},
  td: {align: (v) => ALIGN.test(v), colspan: (v) => DIGITS.test(v), rowspan: (v) => DIGITS.test(v)},
};

const SAFE_SCHEMES = new Set(['http', 'https', 'mailto']);
const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);
// Characters browsers ignore or strip when they read a URL's scheme (controls, blanks, invisible
// format characters): removed before the scheme is looked at, so "java\tscript:" is seen as
// "javascript:".
const IGNORED_IN_SCHEME = /[\u0000-\u0020\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]/g;
// Deeper nesting than this is flattened to text (keeps the copy's recursion bounded).
const MAX_DEPTH = 64;
const HTML_NS = 'http://www.w3.org/1999/xhtml';

// True for a relative URL or one whose scheme is http, https or mailto. `value` is the attribute's
// value after HTML decoding (entities already resolved, as the parser gives it).
export function isSafeHref(value) {
  if (typeof value !== 'string') return false;
  const compact = value.replace(IGNORED_IN_SCHEME, '');
  const scheme = /^([^/?#]*?):/.exec(compact);
  if (scheme && !SAFE_SCHEMES.has(scheme[1].toLowerCase())) return false;
  // A second opinion from the browser's own URL parser, against a placeholder base.
  try {
    const parsed = new URL(value, 'https://relative.invalid/');
    return SAFE_PROTOCOLS.has(parsed.protocol);
  } catch {
    return false;
  }
}

function copyAttributes(source, target) {
  const rules = ALLOWED_ATTRIBUTES[target.localName] || {};
  for (const attr of Array.from(source.attributes)) {
    const name = attr.name.toLowerCase();
    if (name.startsWith('on') || name === 'style') continue;
    const check = Object.prototype.hasOwnProperty.call(rules, name) ? rules[name] : null;
    if (check && check(attr.value)) target.setAttribute(name, attr.value.trim());
  }
  if (target.localName === 'a') {
    target.setAttribute('rel', 'noopener noreferrer');
    target.setAttribute('target', '_blank');
  }
}

function copyChildren(source, target, doc, depth) {
  for (const node of Array.from(source.childNodes)) {
    if (node.nodeType === Node.TEXT_NODE) {
      target.append(doc.createTextNode(node.data));
      continue;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) continue;  // comments, processing instructions
    if (node.namespaceURI !== HTML_NS) continue;         // SVG / MathML content
    const tag = node.localName;
    if (DROPPED_TAGS.has(tag)) continue;
    if (depth >= MAX_DEPTH) {
      target.append(doc.createTextNode(node.textContent || ''));
      continue;
    }
    if (ALLOWED_TAGS.has(tag)) {
      const copy = doc.createElement(tag);
      copyAttributes(node, copy);
      copyChildren(node, copy, doc, depth + 1);
      target.append(copy);
    } else {
      copyChildren(node, target, doc, depth + 1);
    }
  }
}

// Parses `html` inertly and returns a DocumentFragment of `doc` holding only the allowed content.
export function sanitizeHtml(html, doc = document) {
  const fragment = doc.createDocumentFragment();
  if (typeof html !== 'string' || html === '') return fragment;
  const parsed = new DOMParser().parseFromString(html, 'text/html');
  if (parsed.body) copyChildren(parsed.body, fragment, doc, 0);
  return fragment;
}
