// The API token: `keel serve --token T` prints a URL ending in `#token=T`. The fragment never
// reaches the server's logs; the token is kept in sessionStorage (this tab only) and the fragment
// is removed from the address bar so it does not end up in history, bookmarks or screenshots.

const STORAGE_KEY = 'keel.token';

function storage() {
  try {
    return window.sessionStorage;
  } catch {
    return null;  // storage disabled: the token lives only in memory for this page
  }
}

let memoryToken = '';

// Reads `#token=T` (other fragment parameters are kept), stores it, cleans the URL.
export function captureTokenFromUrl() {
  const hash = window.location.hash.replace(/^#/, '');
  if (!hash) return;
  const params = new URLSearchParams(hash);
  const token = params.get('token');
  if (token === null) return;
  setToken(token);
  params.delete('token');
  const rest = params.toString();
  const url = window.location.pathname + window.location.search + (rest ? `#${rest}` : '');
  window.history.replaceState(null, '', url);
}

export function getToken() {
  const store = storage();
  return (store && store.getItem(STORAGE_KEY)) || memoryToken;
}

export function setToken(token) {
  memoryToken = token || '';
  const store = storage();
  if (!store) return;
  if (memoryToken) store.setItem(STORAGE_KEY, memoryToken);
  else store.removeItem(STORAGE_KEY);
}

// Headers for an /api request: `Authorization: Bearer T` when a token is known.
export function authHeaders() {
  const token = getToken();
  return token ? {Authorization: `Bearer ${token}`} : {};
}
