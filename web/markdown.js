// Markdown for model answers: markdownToHtml() turns the common subset (headings, paragraphs,
// emphasis, strikethrough, code spans and fences, links, lists, block quotes, pipe tables, rules)
// into an HTML string; renderMarkdown() passes that string through the strict sanitizer and gives
// back a DocumentFragment ready to append.
//
//   bubble.append(renderMarkdown('**done**: see [the log](https://example.com/log)'));
//
// Text is escaped; inline raw HTML is passed on as CommonMark does, and it is the sanitizer that
// decides what of it survives (its output is the only thing that reaches the page). A single
// newline inside a paragraph is a line break, as in chat. Pure functions; safe anywhere.
import {sanitizeHtml} from './sanitize.js';

const ESCAPES = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'};
const ENTITY = /^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/;
const RAW_TAG = /^(?:<\/?[A-Za-z][A-Za-z0-9-]*(?:\s+[^<>]*?)?\/?>|<!--[\s\S]*?-->)/;
const AUTOLINK = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i;
const PUNCTUATION = /[!-/:-@[-`{-~]/;
const BARE_URL = /^https?:\/\//i;

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

// Escapes text but leaves entity references (&amp; &#106; ...) as written, as Markdown does.
function escapeText(text) {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '&') {
      const entity = ENTITY.exec(text.slice(i, i + 40));
      if (entity) {
        out += entity[0];
        i += entity[0].length - 1;
        continue;
      }
    }
    out += ESCAPES[c] || c;
  }
  return out;
}

// Reads a link destination and optional title starting just after "(": returns {href, title, end}
// (end: index after ")") or null. Parentheses inside the destination must balance.
function readLinkTarget(text, start) {
  let i = start;
  while (text[i] === ' ') i++;
  let href = '';
  if (text[i] === '<') {
    const close = text.indexOf('>', i);
    if (close < 0) return null;
    href = text.slice(i + 1, close);
    i = close + 1;
  } else {
    let depth = 0;
    const from = i;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '\\' && i + 1 < text.length) { i++; continue; }
      if (/\s/.test(c)) break;
      if (c === '(') depth++;
      if (c === ')') { if (depth === 0) break; depth--; }
    }
    href = text.slice(from, i);
  }
  while (text[i] === ' ') i++;
  let title = '';
  const quote = text[i];
  if (quote === '"' || quote === "'") {
    const close = text.indexOf(quote, i + 1);
    if (close < 0) return null;
    title = text.slice(i + 1, close);
    i = close + 1;
    while (text[i] === ' ') i++;
  }
  if (text[i] !== ')') return null;
  return {href, title, end: i + 1};
}

// The index of the "]" closing the "[" at `open`, or -1 (brackets nest; code spans are skipped).
function closingBracket(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') { i++; continue; }
    if (c === '[') depth++;
    if (c === ']') { depth--; if (depth === 0) return i; }
  }
  return -1;
}

function linkHtml(href, title, innerHtml) {
  const titleAttr = title ? ` title="${escapeHtml(title)}"` : '';
  return `<a href="${escapeText(href)}"${titleAttr}>${innerHtml}</a>`;
}

// Inline Markdown -> HTML. Code spans, links, raw tags and escapes are cut out first as
// placeholders (so emphasis never reaches into them), the rest is escaped, emphasis applied, and
// the placeholders put back.
export function inlineToHtml(source) {
  const text = String(source).replace(/\u0000/g, '');
  const saved = [];
  const keep = (html) => { saved.push(html); return `\u0000${saved.length - 1}\u0000`; };
  let rest = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length && PUNCTUATION.test(text[i + 1])) {
      rest += keep(escapeHtml(text[i + 1]));
      i++;
    } else if (c === '`') {
      const ticks = /^`+/.exec(text.slice(i))[0];
      const close = text.indexOf(ticks, i + ticks.length);
      if (close < 0) { rest += ticks; i += ticks.length - 1; continue; }
      let code = text.slice(i + ticks.length, close);
      if (/^ .* $/.test(code)) code = code.slice(1, -1);
      rest += keep(`<code>${escapeHtml(code)}</code>`);
      i = close + ticks.length - 1;
    } else if (c === '<') {
      const tail = text.slice(i, i + 2048);
      const auto = AUTOLINK.exec(tail);
      const raw = auto ? null : RAW_TAG.exec(tail);
      if (auto) {
        rest += keep(linkHtml(auto[1], '', escapeHtml(auto[1])));
        i += auto[0].length - 1;
      } else if (raw) {
        rest += keep(raw[0]);
        i += raw[0].length - 1;
      } else {
        rest += c;
      }
    } else if (c === '[' || (c === '!' && text[i + 1] === '[')) {
      const open = c === '!' ? i + 1 : i;
      const close = closingBracket(text, open);
      const target = close > 0 && text[close + 1] === '(' ? readLinkTarget(text, close + 2) : null;
      if (!target) { rest += c; continue; }
      // Images are not shown (no <img> passes the sanitizer): their alt text links to them.
      rest += keep(linkHtml(target.href, target.title, inlineToHtml(text.slice(open + 1, close))));
      i = target.end - 1;
    } else if ((c === 'h' || c === 'H') && !/\w/.test(text[i - 1] || '') && BARE_URL.test(text.slice(i, i + 9))) {
      // A bare http(s) URL becomes a link (trailing punctuation stays outside it).
      const url = /^https?:\/\/[^\s<>]*[^\s<>.,;:!?'")\]*_~]/i.exec(text.slice(i, i + 2048));
      if (!url) { rest += c; continue; }
      rest += keep(linkHtml(url[0], '', escapeHtml(url[0])));
      i += url[0].length - 1;
    } else {
      rest += c;
    }
  }
  let html = escapeText(rest);
  html = html
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '<del>$1</del>')
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^\w])__(?=\S)([\s\S]*?\S)__(?!\w)/g, '$1<strong>$2</strong>')
    .replace(/\*(?=[^\s*])([\s\S]*?[^\s*])\*/g, '<em>$1</em>')
    .replace(/(^|[^\w])_(?=[^\s_])([\s\S]*?[^\s_])_(?!\w)/g, '$1<em>$2</em>');
  // Placeholders can nest (a link's text holds code spans): restore until none is left.
  for (let pass = 0; pass < 8 && html.includes('\u0000'); pass++) {
    html = html.replace(/\u0000(\d+)\u0000/g, (_, n) => saved[Number(n)]);
  }
  return html;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const LIST_ITEM = /^( {0,12})([-*+]|\d{1,9}[.)])([ \t]+|$)(.*)$/;
const TABLE_SEPARATOR = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

function isBlank(line) {
  return /^\s*$/.test(line);
}

function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) ||
      LIST_ITEM.test(line);
}

function splitRow(line) {
  let row = line.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
  const cells = [];
  let cell = '';
  for (let i = 0; i < row.length; i++) {
    if (row[i] === '\\' && row[i + 1] === '|') { cell += '|'; i++; continue; }
    if (row[i] === '|') { cells.push(cell.trim()); cell = ''; continue; }
    cell += row[i];
  }
  cells.push(cell.trim());
  return cells;
}

function tableHtml(lines) {
  const aligns = splitRow(lines[1]).map((spec) => {
    const left = spec.startsWith(':');
    const right = spec.endsWith(':');
    if (left && right) return 'center';
    return right ? 'right' : left ? 'left' : '';
  });
  const cellHtml = (tag, text, index) => {
    const align = aligns[index] ? ` align="${aligns[index]}"` : '';
    return `<${tag}${align}>${inlineToHtml(text)}</${tag}>`;
  };
  const header = splitRow(lines[0]).map((text, n) => cellHtml('th', text, n)).join('');
  const body = lines.slice(2).map((line) =>
    `<tr>${splitRow(line).slice(0, aligns.length).map((text, n) => cellHtml('td', text, n)).join('')}</tr>`);
  return `<table><thead><tr>${header}</tr></thead>` +
      (body.length ? `<tbody>${body.join('')}</tbody>` : '') + '</table>';
}

// Reads one list starting at lines[start]; returns {html, next}.
function listHtml(lines, start, depth) {
  const first = LIST_ITEM.exec(lines[start]);
  const ordered = /\d/.test(first[2]);
  const baseIndent = first[1].length;
  // True when `line` is another item of this list (same indent, same kind of marker).
  const sameList = (line) => {
    const m = line === undefined ? null : LIST_ITEM.exec(line);
    return Boolean(m) && m[1].length === baseIndent && /\d/.test(m[2]) === ordered;
  };
  const items = [];
  let loose = false;
  let i = start;
  while (i < lines.length) {
    if (!sameList(lines[i])) break;
    const marker = LIST_ITEM.exec(lines[i]);
    const contentIndent = marker[1].length + marker[2].length + Math.max(1, Math.min(marker[3].length, 4));
    const body = [marker[4]];
    i++;
    while (i < lines.length) {
      const line = lines[i];
      if (isBlank(line)) {
        // A blank line inside the list: the item goes on if the next line is indented under it.
        const next = lines[i + 1];
        if (next !== undefined && !isBlank(next) && next.search(/\S/) >= contentIndent) {
          body.push('');
          loose = true;
          i++;
          continue;
        }
        if (sameList(next)) loose = true;
        break;
      }
      const indent = line.search(/\S/);
      if (indent >= contentIndent) { body.push(line.slice(contentIndent)); i++; continue; }
      if (LIST_ITEM.test(line) || startsBlock(line)) break;
      body.push(line.trim());  // a lazy continuation of the item's paragraph
      i++;
    }
    items.push(body);
    if (isBlank(lines[i] || 'x') && sameList(lines[i + 1])) i++;
  }
  const startAttr = ordered && parseInt(first[2], 10) !== 1 ? ` start="${parseInt(first[2], 10)}"` : '';
  const tag = ordered ? 'ol' : 'ul';
  const inner = items.map((body) => `<li>${blocksToHtml(body, depth + 1, !loose)}</li>`).join('');
  return {html: `<${tag}${startAttr}>${inner}</${tag}>`, next: i};
}

// Block Markdown (an array of lines) -> HTML. `tight`: paragraphs without <p> (tight list items).
function blocksToHtml(lines, depth, tight) {
  if (depth > 16) return `<p>${escapeHtml(lines.join('\n'))}</p>`;
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) { i++; continue; }
    const fence = FENCE.exec(line);
    if (fence) {
      const closer = new RegExp(`^ {0,3}${fence[1][0] === '`' ? '`' : '~'}{${fence[1].length},}\\s*$`);
      const code = [];
      i++;
      while (i < lines.length && !closer.test(lines[i])) code.push(lines[i++]);
      i++;
      const lang = /^[A-Za-z0-9_+-]{1,32}$/.test(fence[2]) ? ` class="language-${fence[2]}"` : '';
      out.push(`<pre><code${lang}>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1].length;
      out.push(`<h${level}>${inlineToHtml(heading[2] || '')}</h${level}>`);
      i++;
      continue;
    }
    if (RULE.test(line)) { out.push('<hr>'); i++; continue; }
    if (QUOTE.test(line)) {
      const quoted = [];
      while (i < lines.length && !isBlank(lines[i])) {
        quoted.push(lines[i].replace(QUOTE, ''));
        i++;
      }
      out.push(`<blockquote>${blocksToHtml(quoted, depth + 1, false)}</blockquote>`);
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const list = listHtml(lines, i, depth);
      out.push(list.html);
      i = list.next;
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEPARATOR.test(lines[i + 1]) &&
        lines[i + 1].includes('-')) {
      const rows = [line, lines[i + 1]];
      i += 2;
      while (i < lines.length && !isBlank(lines[i]) && lines[i].includes('|')) rows.push(lines[i++]);
      out.push(tableHtml(rows));
      continue;
    }
    const paragraph = [line];
    i++;
    while (i < lines.length && !isBlank(lines[i]) && !startsBlock(lines[i])) paragraph.push(lines[i++]);
    const html = paragraph.map((l) => inlineToHtml(l.trim().replace(/\\$/, ''))).join('<br>');
    out.push(tight ? html : `<p>${html}</p>`);
  }
  return out.join('');
}

// Markdown text -> HTML string (not yet sanitized; use renderMarkdown for the page).
export function markdownToHtml(text) {
  const lines = String(text ?? '').replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n');
  return blocksToHtml(lines, 0, false);
}

// Markdown text -> sanitized DocumentFragment of `doc`.
export function renderMarkdown(text, doc = document) {
  return sanitizeHtml(markdownToHtml(text), doc);
}
