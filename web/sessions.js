// The session list: newest first, with create, select, fork and delete. Delete asks for a second
// click (the button reads "Confirm delete" for a few seconds; Escape cancels) instead of a modal
// dialog. Arrow keys move between sessions.
//
//   const list = new SessionList(root, api, {onSelect: (id) => ..., onError: (msg) => ...});
//   await list.refresh();
//   list.setActive(id);
//
// One instance per list element.
import {clear, el} from './dom.js';

const CONFIRM_MS = 4000;

function describe(session) {
  const when = session.updated_ms ? new Date(session.updated_ms) : null;
  const time = when && !Number.isNaN(when.getTime()) ?
    when.toISOString().replace('T', ' ').slice(0, 16) : '';
  return {title: session.title || 'untitled session', time};
}

export class SessionList {
  constructor(root, api, hooks) {
    this.root = root;
    this.api = api;
    this.onSelect = hooks.onSelect;
    this.onDeleted = hooks.onDeleted || (() => {});
    this.onError = hooks.onError;
    this.activeId = null;
    this.sessions = [];
    root.addEventListener('keydown', (e) => this.onKey(e));
  }

  async refresh() {
    try {
      const answer = await this.api.listSessions();
      this.sessions = Array.isArray(answer && answer.sessions) ? answer.sessions : [];
    } catch (error) {
      this.onError(`Could not list the sessions: ${error.message}`);
    }
    this.render();
    return this.sessions;
  }

  setActive(id) {
    this.activeId = id;
    for (const item of this.root.querySelectorAll('[data-testid=session-item]')) {
      const open = item.querySelector('.session-open');
      if (item.dataset.sessionId === id) open.setAttribute('aria-current', 'true');
      else open.removeAttribute('aria-current');
    }
  }

  render() {
    clear(this.root);
    if (!this.sessions.length) {
      this.root.append(el('li', {class: 'session-empty'}, 'No sessions yet: send a message to start one.'));
      return;
    }
    for (const session of this.sessions) {
      const {title, time} = describe(session);
      const open = el('button', {
        type: 'button', class: 'session-open', dataset: {testid: 'session-open'},
        'aria-current': session.id === this.activeId ? 'true' : undefined,
        on: {click: () => this.onSelect(session.id)},
      },
      el('span', {class: 'session-title'}, title),
      session.active_run_id ? el('span', {class: 'busy-dot', title: 'a run is active'}, '●') : null,
      el('span', {class: 'session-time'}, time));
      const fork = el('button', {
        type: 'button', class: 'btn small', dataset: {testid: 'session-fork'},
        'aria-label': `fork ${title}`, on: {click: () => this.fork(session.id)},
      }, 'Fork');
      const remove = el('button', {
        type: 'button', class: 'btn small danger', dataset: {testid: 'session-delete'},
        'aria-label': `delete ${title}`,
      }, 'Delete');
      remove.addEventListener('click', () => this.armOrDelete(remove, session.id));
      remove.addEventListener('keydown', (e) => {
        if (e.key === 'Escape') this.disarm(remove);
      });
      this.root.append(el('li', {class: 'session-item', dataset: {testid: 'session-item', sessionId: session.id}},
        open, el('span', {class: 'session-actions'}, fork, remove)));
    }
  }

  disarm(button) {
    clearTimeout(button.confirmTimer);
    delete button.dataset.armed;
    button.textContent = 'Delete';
  }

  async armOrDelete(button, id) {
    if (!button.dataset.armed) {
      button.dataset.armed = 'true';
      button.textContent = 'Confirm delete';
      button.confirmTimer = setTimeout(() => this.disarm(button), CONFIRM_MS);
      return;
    }
    this.disarm(button);
    try {
      await this.api.deleteSession(id);
      this.onDeleted(id);
    } catch (error) {
      this.onError(`Could not delete the session: ${error.message}`);
    }
    await this.refresh();
  }

  async fork(id) {
    try {
      const copy = await this.api.forkSession(id);
      await this.refresh();
      if (copy && copy.id) this.onSelect(copy.id);
    } catch (error) {
      this.onError(`Could not fork the session: ${error.message}`);
    }
  }

  async create(fields = {}) {
    const session = await this.api.createSession(fields);
    await this.refresh();
    return session;
  }

  onKey(event) {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const buttons = Array.from(this.root.querySelectorAll('.session-open'));
    const index = buttons.indexOf(document.activeElement);
    if (index < 0) return;
    event.preventDefault();
    const next = event.key === 'ArrowDown' ? Math.min(buttons.length - 1, index + 1) : Math.max(0, index - 1);
    buttons[next].focus();
  }
}
