// The message box. Enter sends, Shift+Enter adds a line. It stays usable while a run is busy: only
// the Send button is disabled, and Steer (posts the text to the running run) and Abort appear.
//
//   const composer = new Composer(form, {onSend: async (text) => ..., onSteer, onAbort});
//   composer.setBusy(true);
//
// One instance per form; expects the composer markup of index.html.

export class Composer {
  constructor(form, hooks) {
    this.form = form;
    this.hooks = hooks;
    this.input = form.querySelector('[data-testid=composer-input]');
    this.send = form.querySelector('[data-testid=send]');
    this.steer = form.querySelector('[data-testid=steer]');
    this.abort = form.querySelector('[data-testid=abort]');
    this.hint = form.querySelector('[data-testid=composer-hint]');
    this.busy = false;
    this.sending = false;
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.submit();
      }
    });
    this.steer.addEventListener('click', () => this.submitSteer());
    this.abort.addEventListener('click', () => this.hooks.onAbort());
    this.setBusy(false);
  }

  setBusy(busy) {
    this.busy = busy;
    this.send.disabled = busy || this.sending;
    this.steer.hidden = !busy;
    this.abort.hidden = !busy;
    this.form.dataset.busy = busy ? 'true' : 'false';
    if (this.hint) {
      this.hint.textContent = busy ?
        'A run is busy: Steer sends this text to it, Abort stops it.' :
        'Enter to send, Shift+Enter for a new line.';
    }
  }

  async submit() {
    const text = this.input.value.trim();
    if (!text || this.busy || this.sending) return;
    this.sending = true;
    this.send.disabled = true;
    try {
      const sent = await this.hooks.onSend(text);
      if (sent) this.input.value = '';
    } finally {
      this.sending = false;
      this.send.disabled = this.busy;
    }
  }

  async submitSteer() {
    const text = this.input.value.trim();
    if (!text) {
      this.input.focus();
      return;
    }
    const sent = await this.hooks.onSteer(text);
    if (sent) this.input.value = '';
  }

  focus() {
    this.input.focus();
  }
}
