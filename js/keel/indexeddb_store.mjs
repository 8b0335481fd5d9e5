// Sessions and notes in the browser's IndexedDB, for createAgent's `store` and the memory tools.
//
//   const store = await openIndexedDbStore('keel');
//   const agent = await createAgent({model, store});
//   await store.listSessions();            // [{id, title, created, updated, count}], newest first
//   await store.saveNote('the build uses -j1', ['build']);
//
// Every append is one readwrite transaction over the messages and the session's summary: all of
// its messages are stored or none is, so a failed append (QuotaExceededError, a value that cannot
// be cloned, a closed database) leaves what was stored before exactly as it was. Failures reject
// with the DOMException itself (its `name` and `message`), never with a bare event.

const VERSION = 1;
const MESSAGES = 'messages';  // {id (auto), session, message}; index 'session'
const SESSIONS = 'sessions';  // {id, title, created, updated, count}
const NOTES = 'notes';        // {id (auto), text, tags, created}

function failure(error, fallback) {
  if (error) return error;
  return new DOMException(fallback, 'AbortError');
}

// A request as a promise.
function done(request, what) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(failure(request.error, `${what} failed`));
  });
}

// Settles when the transaction commits (to `value()`), rejects with its error when it aborts.
function completed(tx, what, value = () => undefined) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve(value());
    // A failed request aborts the transaction (its error event is never cancelled here), and the
    // abort reports the first error.
    tx.onabort = () => reject(failure(tx.error, `${what}: the transaction was aborted`));
  });
}

function openDatabase(name) {
  if (typeof indexedDB === 'undefined' || !indexedDB) {
    return Promise.reject(new DOMException('IndexedDB is not available in this context', 'NotSupportedError'));
  }
  return new Promise((resolve, reject) => {
    let request;
    try {
      request = indexedDB.open(name, VERSION);
    } catch (e) {
      reject(e);
      return;
    }
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(MESSAGES)) {
        db.createObjectStore(MESSAGES, {keyPath: 'id', autoIncrement: true}).createIndex('session', 'session');
      }
      if (!db.objectStoreNames.contains(SESSIONS)) db.createObjectStore(SESSIONS, {keyPath: 'id'});
      if (!db.objectStoreNames.contains(NOTES)) db.createObjectStore(NOTES, {keyPath: 'id', autoIncrement: true});
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(failure(request.error, `cannot open the IndexedDB database '${name}'`));
    request.onblocked = () => reject(new DOMException(`the IndexedDB database '${name}' is held open by another tab with an older version`, 'InvalidStateError'));
  });
}

// The first user message that carries text, shortened: a session's title.
function titleOf(messages) {
  const first = messages.find((m) => m && m.role === 'user' && typeof m.content === 'string' && m.content.trim());
  if (!first) return '';
  const text = first.content.trim().replace(/\s+/g, ' ');
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function termsOf(text) {
  return String(text || '').toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter(Boolean);
}

function checkSession(sessionId) {
  if (typeof sessionId !== 'string' || !sessionId) throw new TypeError('a session id must be a non-empty string');
}

export async function openIndexedDbStore(name = 'keel') {
  let db = await openDatabase(name);
  // Another tab upgrading the database: let it, this connection is finished.
  db.onversionchange = () => {
    db.close();
    db = null;
  };
  const transaction = (stores, mode) => {
    if (!db) throw new DOMException(`the IndexedDB database '${name}' was closed`, 'InvalidStateError');
    return db.transaction(stores, mode);
  };

  return {
    name,

    // The session's messages in the order they were appended; [] for a session never stored.
    async load(sessionId) {
      checkSession(sessionId);
      const tx = transaction([MESSAGES], 'readonly');
      const rows = await done(tx.objectStore(MESSAGES).index('session').getAll(IDBKeyRange.only(sessionId)), 'reading the session');
      return rows.sort((a, b) => a.id - b.id).map((r) => r.message);
    },

    // One transaction: every message and the session's summary, or nothing.
    async append(sessionId, messages) {
      checkSession(sessionId);
      if (!Array.isArray(messages)) throw new TypeError('append needs an array of messages');
      if (!messages.length) return;
      const tx = transaction([MESSAGES, SESSIONS], 'readwrite');
      const finished = completed(tx, 'saving the session');
      try {
        const store = tx.objectStore(MESSAGES);
        for (const message of messages) store.add({session: sessionId, message});
        const sessions = tx.objectStore(SESSIONS);
        const now = Date.now();
        const read = sessions.get(sessionId);
        read.onsuccess = () => {
          const old = read.result;
          try {
            sessions.put({
              id: sessionId,
              title: old?.title || titleOf(messages),
              created: old?.created ?? now,
              updated: now,
              count: (old?.count || 0) + messages.length,
            });
          } catch (e) {
            try { tx.abort(); } catch { /* already finished */ }
          }
        };
      } catch (e) {
        // A message that cannot be stored (DataCloneError...) throws here: nothing is kept.
        finished.catch(() => {});
        try { tx.abort(); } catch { /* already aborted */ }
        throw e;
      }
      await finished;
    },

    // [{id, title, created, updated, count}], the most recently updated first.
    async listSessions() {
      const tx = transaction([SESSIONS], 'readonly');
      const rows = await done(tx.objectStore(SESSIONS).getAll(), 'listing the sessions');
      return rows.sort((a, b) => b.updated - a.updated || (a.id < b.id ? -1 : 1));
    },

    // Removes a session and its messages (one transaction).
    async deleteSession(sessionId) {
      checkSession(sessionId);
      const tx = transaction([MESSAGES, SESSIONS], 'readwrite');
      const finished = completed(tx, 'deleting the session');
      const index = tx.objectStore(MESSAGES).index('session');
      const keys = index.getAllKeys(IDBKeyRange.only(sessionId));
      keys.onsuccess = () => {
        for (const key of keys.result) tx.objectStore(MESSAGES).delete(key);
        tx.objectStore(SESSIONS).delete(sessionId);
      };
      await finished;
    },

    // Resolves to the new note's id.
    async saveNote(text, tags = []) {
      if (typeof text !== 'string' || !text.trim()) throw new TypeError('a note needs some text');
      const cleanTags = (Array.isArray(tags) ? tags : [tags]).filter((t) => typeof t === 'string' && t.trim()).map((t) => t.trim());
      const tx = transaction([NOTES], 'readwrite');
      const finished = completed(tx, 'saving the note');
      let id;
      const request = tx.objectStore(NOTES).add({text, tags: cleanTags, created: Date.now()});
      request.onsuccess = () => { id = request.result; };
      await finished;
      return id;
    },

    // Notes that share words with `query` (text and tags; a tag match counts double), best first,
    // then newest first; an empty query lists the newest notes. [{id, text, tags, created, score}].
    async searchNotes(query, {limit = 10} = {}) {
      const tx = transaction([NOTES], 'readonly');
      const rows = await done(tx.objectStore(NOTES).getAll(), 'searching the notes');
      const wanted = [...new Set(termsOf(query))];
      const scored = rows.map((note) => {
        if (!wanted.length) return {...note, score: 0};
        const words = new Set(termsOf(note.text));
        const tags = new Set(note.tags.flatMap(termsOf));
        const text = note.text.toLowerCase();
        let score = 0;
        for (const w of wanted) {
          if (tags.has(w)) score += 2;
          if (words.has(w)) score += 1;
          else if (w.length >= 3 && text.includes(w)) score += 0.5;
        }
        return {...note, score};
      });
      return scored.filter((n) => !wanted.length || n.score > 0)
        .sort((a, b) => b.score - a.score || b.created - a.created || b.id - a.id)
        .slice(0, limit);
    },

    close() {
      db?.close();
      db = null;
    },
  };
}
