// Small DOM helpers shared by the views. Everything here builds nodes with createElement and
// textContent: no view ever assigns HTML strings to the live document.

// el('button', {class: 'x', type: 'button', dataset: {testid: 'send'}}, 'Send') -> HTMLButtonElement.
// Attribute values are set with setAttribute (never event handlers: pass listeners with `on`).
// `on` maps event names to listeners; children are nodes or strings (strings become text nodes).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'dataset') {
      for (const [name, v] of Object.entries(value)) node.dataset[name] = String(v);
    } else if (key === 'on') {
      for (const [name, listener] of Object.entries(value)) node.addEventListener(name, listener);
    } else if (key === 'text') {
      node.textContent = String(value);
    } else {
      node.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(node, children);
  return node;
}

// Appends nodes and strings (as text) to `parent`, skipping null/undefined/false.
export function append(parent, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

// Removes every child of `node`.
export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

// An SVG element (createElementNS); attributes as for el().
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

// JSON for people: objects and arrays indented by two spaces; a string that holds JSON is parsed
// first, so a tool's JSON output reads the same as its arguments. Anything else comes back as is.
export function prettyJson(value) {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        return JSON.stringify(JSON.parse(trimmed), null, 2);
      } catch {
        return value;
      }
    }
    return value;
  }
  if (value === undefined) return '';
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

// 5 -> "5 ms", 1530 -> "1.5 s", 125000 -> "2 min 5 s".
export function formatDuration(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60000);
  return `${minutes} min ${Math.round((ms % 60000) / 1000)} s`;
}

// 12345 -> "12,345" (locale-independent so tests and screenshots read the same everywhere).
export function formatCount(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '0';
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// A unique id for aria-controls / label pairs.
let nextId = 0;
export function uniqueId(prefix) {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

// Wires a disclosure: `button` (aria-controls=region id) shows and hides `region`, keeping
// aria-expanded in step; the state is remembered in localStorage under `key` when given.
export function makeCollapsible(button, region, key) {
  const apply = (expanded) => {
    button.setAttribute('aria-expanded', expanded ? 'true' : 'false');
    region.hidden = !expanded;
  };
  let expanded = button.getAttribute('aria-expanded') !== 'false';
  if (key) {
    try {
      const stored = window.localStorage.getItem(key);
      if (stored === 'open' || stored === 'closed') expanded = stored === 'open';
    } catch {
      // storage disabled: the markup's default stays
    }
  }
  apply(expanded);
  button.addEventListener('click', () => {
    const next = button.getAttribute('aria-expanded') !== 'true';
    apply(next);
    if (!key) return;
    try {
      window.localStorage.setItem(key, next ? 'open' : 'closed');
    } catch {
      // storage disabled
    }
  });
}
