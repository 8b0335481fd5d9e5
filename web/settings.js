// Settings: the profile (from GET /api/models), max rounds and approval mode sent with every
// message, and the API token. Kept in localStorage (the token in sessionStorage, see auth.js).
// The panel opens from a toggle button (aria-expanded) and closes with Escape, giving focus back
// to the toggle.
//
//   const settings = new Settings(api, onError);
//   await settings.loadModels();
//   api.postMessage(id, {content, ...settings.payload()});
//
// One instance per page; expects the settings markup of index.html.
import {clear, el} from './dom.js';
import {getToken, setToken} from './auth.js';

const STORAGE_KEY = 'keel.settings';
const MODES = new Set(['', 'auto', 'confirm', 'deny']);
export const DEFAULT_MAX_ROUNDS = 20;

function loadStored() {
  try {
    const value = JSON.parse(window.localStorage.getItem(STORAGE_KEY) || '{}');
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

export class Settings {
  constructor(api, onError) {
    this.api = api;
    this.onError = onError;
    this.profiles = [];
    this.defaultProfile = '';
    const $ = (id) => document.getElementById(id);
    this.toggle = document.querySelector('[data-testid=settings-toggle]');
    this.panel = $('settings-panel');
    this.token = $('setting-token');
    this.profile = $('setting-profile');
    this.maxRounds = $('setting-max-rounds');
    this.mode = $('setting-approval-mode');
    this.closeButton = document.querySelector('[data-testid=settings-close]');
    const stored = loadStored();
    this.stored = stored;
    if (Number.isInteger(stored.max_rounds) && stored.max_rounds > 0) this.maxRounds.value = String(stored.max_rounds);
    this.mode.value = MODES.has(stored.approval_mode) ? stored.approval_mode : '';
    this.token.value = getToken();
    this.wire();
  }

  wire() {
    this.toggle.addEventListener('click', () => this.setOpen(this.panel.hidden));
    this.closeButton.addEventListener('click', () => this.setOpen(false));
    this.panel.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.setOpen(false);
      }
    });
    this.panel.addEventListener('submit', (e) => {
      e.preventDefault();
      this.setOpen(false);
    });
    for (const input of [this.profile, this.maxRounds, this.mode]) {
      input.addEventListener('change', () => this.save());
    }
    this.profile.addEventListener('change', () => this.showProfileDefault());
    this.token.addEventListener('change', () => setToken(this.token.value.trim()));
  }

  isOpen() {
    return !this.panel.hidden;
  }

  setOpen(open) {
    this.panel.hidden = !open;
    this.toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
    if (open) {
      this.profile.focus();
    } else {
      this.toggle.focus();
    }
  }

  save() {
    const value = {
      profile: this.profile.value || undefined,
      max_rounds: this.maxRoundsValue() || undefined,
      approval_mode: this.mode.value || undefined,
    };
    try {
      window.localStorage.setItem(STORAGE_KEY, JSON.stringify(value));
    } catch {
      // storage disabled: settings last for this page only
    }
  }

  async loadModels() {
    try {
      const models = await this.api.models();
      this.profiles = Array.isArray(models && models.profiles) ? models.profiles : [];
      this.defaultProfile = (models && models.default) || '';
    } catch (error) {
      this.onError(`Could not load the model profiles: ${error.message}`);
    }
    clear(this.profile);
    for (const profile of this.profiles) {
      const label = profile.model ? `${profile.name} — ${profile.model}` : profile.name;
      this.profile.append(el('option', {value: profile.name, title: profile.description || undefined}, label));
    }
    if (!this.profiles.length) this.profile.append(el('option', {value: ''}, 'server default'));
    const wanted = this.stored.profile;
    if (wanted && this.profiles.some((p) => p.name === wanted)) {
      this.profile.value = wanted;
    } else if (this.defaultProfile && this.profiles.some((p) => p.name === this.defaultProfile)) {
      this.profile.value = this.defaultProfile;
    }
    this.showProfileDefault();
  }

  selectedProfile() {
    return this.profiles.find((p) => p.name === this.profile.value) || null;
  }

  showProfileDefault() {
    const profile = this.selectedProfile();
    const fallback = profile && profile.max_rounds ? profile.max_rounds : DEFAULT_MAX_ROUNDS;
    this.maxRounds.placeholder = `default: ${fallback}`;
  }

  maxRoundsValue() {
    const n = Number(this.maxRounds.value);
    return Number.isInteger(n) && n >= 1 && n <= 1000 ? n : 0;
  }

  // The rounds limit a new run will have (for the HUD).
  effectiveMaxRounds() {
    const profile = this.selectedProfile();
    return this.maxRoundsValue() || (profile && profile.max_rounds) || DEFAULT_MAX_ROUNDS;
  }

  // The per-message fields of POST /api/sessions/{id}/messages.
  payload() {
    const out = {};
    if (this.profile.value) out.profile = this.profile.value;
    const rounds = this.maxRoundsValue();
    if (rounds) out.max_rounds = rounds;
    if (this.mode.value) out.approval_mode = this.mode.value;
    return out;
  }
}
