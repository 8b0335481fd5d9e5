// The JSON API client for `keel serve` (docs/server.md). Every call carries the bearer token and
// a timeout; a failed call rejects with an ApiError holding the HTTP status and the server's
// stable error code, so callers can branch on `code` (session_busy, already_decided...) and show
// `message` to the person.
//
//   const api = createApi();
//   const session = await api.createSession({title: 'notes'});
//   try { await api.postMessage(session.id, {content: 'hi'}); }
//   catch (e) { if (e.code === 'session_busy') ... }
import {authHeaders} from './auth.js';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;  // HTTP status; 0 when no answer came (network error, timeout)
    this.code = code;      // the server's error code, or 'network' / 'timeout' / 'bad_response'
  }
}

const DEFAULT_TIMEOUT_MS = 30000;

function segment(id) {
  return encodeURIComponent(String(id));
}

async function errorFromResponse(response) {
  let code = `http_${response.status}`;
  let message = `${response.status} ${response.statusText}`.trim();
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
    }
  } catch {
    // not JSON: keep the status line
  }
  if (response.status === 401) {
    message += ' (open the address `keel serve` printed, with its #token=..., or set the token in Settings)';
  }
  return new ApiError(response.status, code, message);
}

// options.baseUrl: prefix for paths (default: same origin); options.timeoutMs: per request.
export function createApi(options = {}) {
  const baseUrl = options.baseUrl || '';
  const timeoutMs = options.timeoutMs || DEFAULT_TIMEOUT_MS;

  async function request(method, path, body) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const headers = {Accept: 'application/json', ...authHeaders()};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response;
    try {
      response = await fetch(baseUrl + path, {
        method, headers, signal: controller.signal,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      if (controller.signal.aborted) {
        throw new ApiError(0, 'timeout', `${method} ${path}: no answer within ${timeoutMs / 1000} s; is keel serve running?`);
      }
      throw new ApiError(0, 'network', `${method} ${path}: ${error.message}; is keel serve running?`);
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) throw await errorFromResponse(response);
    if (response.status === 204) return null;
    const text = await response.text();
    if (!text) return null;
    try {
      return JSON.parse(text);
    } catch {
      throw new ApiError(response.status, 'bad_response', `${method} ${path}: the answer is not JSON`);
    }
  }

  return {
    request,
    health: () => request('GET', '/api/health'),
    models: () => request('GET', '/api/models'),
    listSessions: () => request('GET', '/api/sessions'),
    createSession: (fields = {}) => request('POST', '/api/sessions', fields),
    getSession: (id) => request('GET', `/api/sessions/${segment(id)}`),
    deleteSession: (id) => request('DELETE', `/api/sessions/${segment(id)}`),
    forkSession: (id, at) => request('POST', `/api/sessions/${segment(id)}/fork`, at === undefined ? {} : {at}),
    postMessage: (id, payload) => request('POST', `/api/sessions/${segment(id)}/messages`, payload),
    getRun: (id) => request('GET', `/api/runs/${segment(id)}`),
    abortRun: (id) => request('POST', `/api/runs/${segment(id)}/abort`),
    steerRun: (id, content) => request('POST', `/api/runs/${segment(id)}/steer`, {content}),
    decideApproval: (id, decision) => request('POST', `/api/approvals/${segment(id)}`, {decision}),
    answerQuestion: (id, answer) => request('POST', `/api/questions/${segment(id)}`, answer),
    skills: () => request('GET', '/api/skills'),
    decideProposal: (id, decision) => request('POST', `/api/skills/proposals/${segment(id)}`, {decision}),
    autopilot: () => request('GET', '/api/autopilot'),
    sessionEventsUrl: (id) => `${baseUrl}/api/sessions/${segment(id)}/events`,
  };
}
