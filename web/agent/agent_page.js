// keel in a web page with no keel server: the WebAssembly core decides every step, this page calls
// the model (any OpenAI-compatible server that allows this origin), runs the browser tools, asks
// the person for approvals and answers, and keeps sessions and notes in IndexedDB.
//
// Where the package comes from: ?pkg=URL, else <meta name="keel-package">, else ./keel-js/keel.mjs
// (always this page's origin). Settings: the form, or ?base=URL&model=NAME (a key is never read
// from the address; a base URL from the address that differs from the saved one starts without
// the saved key, so a link cannot send it elsewhere).
//
// window.keelAgentPage is the page's handle for scripts and tests: {ready, busy, store (the
// session store the next run uses; replace it or wrap its methods), sessionId, events (of the
// current or last run), lastResult, run(task), newSession(), openSession(id), idle()}.
import {clear, el, formatCount} from '../dom.js';
import {RunView, assistantMessage, attachRunViews, note, resetPlanBoard, showMarkdown, toolCards, userMessage} from './run_view.js';

const $ = (testid) => document.querySelector(`[data-testid="${testid}"]`);
const params = new URLSearchParams(location.search);
const SETTINGS_KEY = 'keel-agent:settings';
const API_KEY_KEY = 'keel-agent:api-key';

const ui = {
  status: $('run-status'),
  banner: $('banner'),
  bannerText: $('banner-text'),
  log: $('chat-log'),
  composer: $('composer'),
  input: $('task-input'),
  send: $('send'),
  stop: $('stop'),
  sessions: $('session-list'),
  newSession: $('new-session'),
  settingsToggle: $('settings-toggle'),
  settings: $('settings-panel'),
  base: $('setting-base'),
  model: $('setting-model'),
  key: $('setting-key'),
  approval: $('setting-approval'),
  settingsNote: $('settings-note'),
  usagePrompt: $('usage-prompt'),
  usageCompletion: $('usage-completion'),
  sessionId: $('session-id'),
  rounds: $('rounds'),
  runUsage: $('run-usage'),
  planPanel: $('plan-panel'),
  toolList: $('tool-list'),
};

let idleWaiters = [];
const page = {
  ready: false,
  busy: false,
  store: null,
  sessionId: null,
  events: [],
  lastResult: null,
  usage: {prompt_tokens: 0, completion_tokens: 0},
  run: (task) => runTask(task),
  newSession: () => newSession(),
  openSession: (id) => openSession(id),
  // Resolves when no run is in progress.
  idle: () => (page.busy ? new Promise((resolve) => idleWaiters.push(resolve)) : Promise.resolve()),
};
window.keelAgentPage = page;

function showBanner(message) {
  ui.bannerText.textContent = message;
  ui.banner.hidden = !message;
}

function setStatus(text, state) {
  ui.status.textContent = text;
  ui.status.dataset.state = state || '';
}

function scrollDown() {
  ui.log.scrollTop = ui.log.scrollHeight;
}

attachRunViews({page, ui, $, scrollDown, setStatus, showBanner, showUsage, showSession});

// --- settings -------------------------------------------------------------------------------

function readJson(storage, key) {
  try {
    return JSON.parse(storage.getItem(key) || '{}') || {};
  } catch {
    return {};
  }
}

function loadSettings() {
  const saved = readJson(localStorage, SETTINGS_KEY);
  let key = '';
  try {
    key = sessionStorage.getItem(API_KEY_KEY) || '';
  } catch {
    // storage disabled
  }
  const base = params.get('base') ?? saved.base ?? '';
  const fromAddress = params.has('base') && params.get('base') !== saved.base;
  ui.base.value = base;
  ui.model.value = params.get('model') ?? saved.model ?? '';
  ui.key.value = fromAddress ? '' : key;
  ui.approval.value = saved.approval === 'high' ? 'high' : 'medium';
}

function currentSettings() {
  return {base: ui.base.value.trim(), model: ui.model.value.trim(), key: ui.key.value, approval: ui.approval.value};
}

function saveSettings() {
  const s = currentSettings();
  try {
    localStorage.setItem(SETTINGS_KEY, JSON.stringify({base: s.base, model: s.model, approval: s.approval}));
    if (s.key) sessionStorage.setItem(API_KEY_KEY, s.key);
    else sessionStorage.removeItem(API_KEY_KEY);
    ui.settingsNote.textContent = 'Saved.';
  } catch {
    ui.settingsNote.textContent = 'This browser does not keep settings; they last until the page is closed.';
  }
}

function toggleSettings(open) {
  const show = open ?? ui.settings.hidden;
  ui.settings.hidden = !show;
  ui.settingsToggle.setAttribute('aria-expanded', show ? 'true' : 'false');
  if (show) ui.base.focus();
}

function showUsage(runUsage) {
  ui.usagePrompt.textContent = formatCount(page.usage.prompt_tokens);
  ui.usageCompletion.textContent = formatCount(page.usage.completion_tokens);
  if (runUsage) ui.runUsage.textContent = `${formatCount(runUsage.prompt_tokens)} prompt, ${formatCount(runUsage.completion_tokens)} completion`;
}

function showSession(id) {
  page.sessionId = id || null;
  ui.sessionId.textContent = id || 'new';
  for (const button of ui.sessions.querySelectorAll('.session-open')) {
    button.setAttribute('aria-current', button.dataset.session === id ? 'true' : 'false');
  }
}

// --- the package and the runs ---------------------------------------------------------------

let keel = null;
let tools = [];
let currentView = null;
let controller = null;

function packageUrl() {
  const raw = params.get('pkg') || document.querySelector('meta[name="keel-package"]')?.getAttribute('content') || './keel-js/keel.mjs';
  const url = new URL(raw, document.baseURI);
  if (url.origin !== location.origin) throw new Error(`the package must be served from this page's origin (${location.origin}), not ${url.origin}`);
  return url;
}

function setBusy(busy) {
  page.busy = busy;
  ui.send.disabled = busy || !page.ready;
  ui.stop.disabled = !busy;
  ui.newSession.disabled = busy;
  for (const button of ui.sessions.querySelectorAll('button')) button.disabled = busy;
  if (!busy) {
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

async function runTask(rawTask) {
  const task = String(rawTask ?? '').trim();
  if (!task) return null;
  if (!page.ready) throw new Error('the agent core is not loaded yet');
  if (page.busy) throw new Error('a run is in progress');
  const settings = currentSettings();
  if (!settings.base || !settings.model) {
    showBanner('Set the model server\'s base URL and the model name first (Settings).');
    toggleSettings(true);
    return null;
  }
  showBanner('');
  setBusy(true);
  page.events = [];
  const turn = el('div', {class: 'turn', dataset: {testid: 'turn'}}, userMessage(task));
  ui.log.append(turn);
  scrollDown();
  const view = new RunView(turn);
  currentView = view;
  controller = new AbortController();
  try {
    const agent = await keel.createAgent({
      model: {baseUrl: settings.base, name: settings.model, apiKey: settings.key || undefined},
      tools,
      store: page.store,
      approve: (request) => view.approve(request),
      config: {approval_threshold: settings.approval},
    });
    const result = await agent.run(task, {
      sessionId: page.sessionId || undefined,
      signal: controller.signal,
      onEvent: (ev) => {
        page.events.push(ev);
        view.handle(ev);
      },
    });
    page.lastResult = result;
    if (result.sessionId) showSession(result.sessionId);
    return result;
  } catch (e) {
    note(turn, 'error', `The run could not start: ${e.message || e}`, 'run-failed');
    setStatus('failed', 'failed');
    page.lastResult = {answer: null, error: {kind: e.kind || 'internal', message: e.message || String(e)}, events: page.events};
    return page.lastResult;
  } finally {
    view.cancelPrompts();
    currentView = null;
    controller = null;
    await refreshSessions();
    setBusy(false);
    ui.input.focus();
  }
}

function stopRun() {
  if (!controller) return;
  controller.abort(new Error('stopped in the page'));
  currentView?.cancelPrompts();
}

// --- sessions -------------------------------------------------------------------------------

async function refreshSessions() {
  if (!page.store?.listSessions) return;
  let list = [];
  try {
    list = await page.store.listSessions();
  } catch (e) {
    showBanner(`The sessions cannot be listed: ${e.name || 'Error'}: ${e.message || e}`);
    return;
  }
  clear(ui.sessions);
  if (!list.length) {
    ui.sessions.append(el('li', {class: 'session-empty'}, 'No sessions yet.'));
    return;
  }
  for (const s of list) {
    const button = el('button', {
      type: 'button', class: 'session-open', 'aria-current': s.id === page.sessionId ? 'true' : 'false',
      dataset: {testid: 'session-open', session: s.id}, disabled: page.busy,
      on: {click: () => openSession(s.id)},
    },
    el('span', {class: 'session-title'}, s.title || s.id),
    el('span', {class: 'session-time'}, `${new Date(s.updated).toLocaleString()} · ${s.count} messages`));
    ui.sessions.append(el('li', {class: 'session-item', dataset: {testid: 'session-item'}}, button));
  }
}

function resetLog() {
  clear(ui.log);
  toolCards.clear();
  resetPlanBoard();
  ui.planPanel.hidden = true;
  page.usage = {prompt_tokens: 0, completion_tokens: 0};
  showUsage(null);
  ui.runUsage.textContent = 'no run yet';
  ui.rounds.textContent = '0';
}

function newSession() {
  if (page.busy) return;
  resetLog();
  showSession(null);
  setStatus('ready', '');
  ui.input.focus();
}

// Shows a stored session (its messages as they were saved) and continues it with the next task.
async function openSession(id) {
  if (page.busy) return;
  let messages;
  try {
    messages = await page.store.load(id);
  } catch (e) {
    showBanner(`The session cannot be read: ${e.name || 'Error'}: ${e.message || e}`);
    return;
  }
  resetLog();
  showSession(id);
  const turn = el('div', {class: 'turn history', dataset: {testid: 'history'}});
  ui.log.append(turn);
  let slot = null;
  for (const m of messages) {
    if (m.role === 'user') {
      if (!m.metadata?.kind || m.metadata.kind === 'task') turn.append(userMessage(m.content || ''));
      else note(turn, '', `keel: ${m.content || ''}`, 'history-note');
      slot = null;
    } else if (m.role === 'assistant') {
      if (m.content) {
        const msg = assistantMessage('assistant', 'history');
        showMarkdown(msg, m.content);
        turn.append(msg.node);
      }
      if (m.tool_calls?.length) {
        slot = el('div', {class: 'round-tools'});
        turn.append(slot);
        for (const c of m.tool_calls) toolCards.start(slot, {id: c.id, name: c.name, arguments: c.arguments});
      }
    } else if (m.role === 'tool') {
      const status = m.metadata?.status || 'ok';
      if (toolCards.has(m.tool_call_id)) toolCards.finish({id: m.tool_call_id, status, content: m.content || ''});
      else if (slot) toolCards.denied(slot, {id: m.tool_call_id, name: m.name || 'tool'}, m.content);
    }
  }
  setStatus(`session ${id}: ${messages.length} stored messages`, '');
  scrollDown();
}

// --- start ----------------------------------------------------------------------------------

function wire() {
  ui.composer.addEventListener('submit', (e) => {
    e.preventDefault();
    if (page.busy || !page.ready) return;
    const task = ui.input.value;
    if (!task.trim()) return;
    ui.input.value = '';
    runTask(task).catch((error) => showBanner(error.message));
  });
  ui.input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      ui.composer.requestSubmit();
    }
  });
  ui.stop.addEventListener('click', stopRun);
  ui.newSession.addEventListener('click', newSession);
  ui.settingsToggle.addEventListener('click', () => toggleSettings());
  ui.settings.addEventListener('submit', (e) => {
    e.preventDefault();
    saveSettings();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !ui.settings.hidden) {
      toggleSettings(false);
      ui.settingsToggle.focus();
    }
  });
}

function listTools() {
  clear(ui.toolList);
  for (const t of tools) {
    ui.toolList.append(el('li', {dataset: {testid: 'tool-entry', tool: t.name}},
      el('span', {class: 'tool-name'}, t.name),
      t.readOnly ? el('span', {class: 'badge'}, 'read-only') : null,
      t.risk && t.risk !== 'low' ? el('span', {class: `badge risk ${t.risk}`}, `${t.risk} risk`) : null));
  }
}

async function start() {
  wire();
  loadSettings();
  let url;
  try {
    url = packageUrl();
    keel = await import(url.href);
    const [toolsModule, storeModule] = await Promise.all([
      import(new URL('./browser_tools.mjs', url).href),
      import(new URL('./indexeddb_store.mjs', url).href),
    ]);
    try {
      page.store = await storeModule.openIndexedDbStore(params.get('db') || 'keel');
    } catch (e) {
      showBanner(`Sessions and notes are not kept: IndexedDB failed (${e.name || 'Error'}: ${e.message || e}).`);
    }
    const toolOptions = {
      get store() { return page.store?.saveNote ? page.store : undefined; },
      ask: (question, {signal} = {}) => {
        if (!currentView) return Promise.reject(new Error('no run is waiting for an answer'));
        return currentView.ask(question, signal);
      },
    };
    tools = toolsModule.builtinBrowserTools(toolOptions);
    await keel.loadCore();
  } catch (e) {
    setStatus('the agent could not be loaded', 'failed');
    showBanner(`keel's package could not be loaded from ${url ? url.href : 'its address'}: ${e.message || e}`);
    return;
  }
  listTools();
  page.ready = true;
  setBusy(false);
  setStatus('ready', '');
  await refreshSessions();
  if (!currentSettings().base || !currentSettings().model) toggleSettings(true);
  else ui.input.focus();
}

start();
