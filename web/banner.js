// The error banner: one line a person can act on (what failed and what to do), announced through
// role="alert", closed with its button or Escape, and replaced by the next message.
//
//   const banner = new Banner(document.querySelector('[data-testid=banner]'));
//   banner.show('Could not send: session_busy ...');
//
// One instance per banner element.
import {clear, el} from './dom.js';

export class Banner {
  constructor(root) {
    this.root = root;
    root.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') this.hide();
    });
  }

  show(message, kind = 'error') {
    clear(this.root);
    this.root.dataset.kind = kind;
    this.root.append(
      el('span', {class: 'banner-text', dataset: {testid: 'banner-text'}}, message),
      el('button', {type: 'button', class: 'btn small', 'aria-label': 'dismiss', on: {click: () => this.hide()}}, '×'));
    this.root.hidden = false;
  }

  hide() {
    this.root.hidden = true;
    clear(this.root);
  }
}
