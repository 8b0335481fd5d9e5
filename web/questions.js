// Question cards: when the agent asks the person (`question`, from the ask_user tool), an inline
// card shows the question with one button per option and, when free text is allowed, a labelled
// text box; the answer is POSTed to /api/questions/{question_id}. The card settles on the answer
// or on `question_answered`.
//
//   const questions = new Questions(api, (message) => banner.show(message));
//   questions.ask(slot, event);        // question
//   questions.answered(event);         // question_answered
//
// One instance per page; remembers cards by question id until clear().
import {el, uniqueId} from './dom.js';

export class Questions {
  constructor(api, onError) {
    this.api = api;
    this.onError = onError;
    this.cards = new Map();  // question id -> {card, controls, status}
  }

  clear() {
    this.cards.clear();
  }

  ask(slot, event) {
    const id = event.question_id;
    if (this.cards.has(id)) return this.cards.get(id).card;
    const controls = [];
    const options = Array.isArray(event.options) ? event.options : [];
    const optionButtons = options.map((option, index) => {
      const button = el('button', {
        type: 'button', class: 'btn option', dataset: {testid: 'question-option', index},
        on: {click: () => this.send(id, {option_index: index}, String(option))},
      }, String(option));
      controls.push(button);
      return button;
    });
    let form = null;
    if (event.allow_free_text) {
      const inputId = uniqueId('answer');
      const input = el('input', {id: inputId, type: 'text', class: 'answer-input', dataset: {testid: 'question-input'}});
      const submit = el('button', {type: 'submit', class: 'btn', dataset: {testid: 'question-submit'}}, 'Answer');
      controls.push(input, submit);
      form = el('form', {class: 'answer-form'},
        el('label', {for: inputId}, 'Your answer'), input, submit);
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        const text = input.value.trim();
        if (text) this.send(id, {answer: text}, text);
      });
    }
    const status = el('p', {class: 'question-status', role: 'status', dataset: {testid: 'question-status'}},
      'waiting for your answer');
    const card = el('div', {
      class: 'question-card', role: 'group', 'aria-label': 'question from the agent',
      dataset: {testid: 'question', questionId: id ?? '', state: 'pending'},
    },
    el('p', {class: 'question-text', dataset: {testid: 'question-text'}}, String(event.question ?? '')),
    optionButtons.length ? el('div', {class: 'question-options'}, optionButtons) : null,
    form, status);
    slot.append(card);
    this.cards.set(id, {card, controls, status});
    return card;
  }

  settle(id, answer) {
    const entry = this.cards.get(id);
    if (!entry) return;
    entry.card.dataset.state = 'answered';
    for (const control of entry.controls) control.disabled = true;
    entry.status.textContent = `answered: ${answer}`;
  }

  async send(id, payload, shown) {
    const entry = this.cards.get(id);
    if (!entry || entry.card.dataset.state !== 'pending') return;
    for (const control of entry.controls) control.disabled = true;
    entry.status.textContent = 'sending…';
    try {
      const reply = await this.api.answerQuestion(id, payload);
      this.settle(id, (reply && reply.answer) || shown);
    } catch (error) {
      if (error.code === 'already_decided' || error.code === 'not_found') {
        this.settle(id, `(already answered) ${error.message}`);
        return;
      }
      for (const control of entry.controls) control.disabled = false;
      entry.status.textContent = `could not send: ${error.message}`;
      this.onError(`Answer not sent: ${error.message}`);
    }
  }

  answered(event) {
    this.settle(event.question_id, event.answer);
  }
}
