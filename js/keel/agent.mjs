// The JavaScript host of keel's agent loop: the WebAssembly core decides every step (guards, the
// repair round, continuation prompts, the context pipeline, plans with references, approvals); this
// file only carries the decisions out — model calls over fetch, tools, approvals, the session store
// — and reports what happens as keel's event schema (docs/events.md, version 1).
import {KeelError, loadCore} from './core.mjs';
import {openaiModel} from './openai_model.mjs';
import {anthropicModel} from './anthropic_model.mjs';
import {runToolCalls, toolSpecOf} from './tool_runner.mjs';

const nowMs = () => (typeof performance === 'object' ? performance.now() : Date.now());

function randomId(prefix) {
  const bytes = new Uint8Array(6);
  globalThis.crypto.getRandomValues(bytes);
  return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// A model backend from options: an object with complete() is used as is; otherwise {provider:
// 'openai' (default) | 'anthropic', baseUrl, apiKey, name, ...}.
export function modelFrom(model) {
  if (model && typeof model.complete === 'function') return model;
  if (!model || typeof model !== 'object') throw new KeelError('invalid_argument', 'createAgent needs a model: {baseUrl, name, apiKey?} or an object with complete()');
  if (model.provider === 'anthropic') return anthropicModel(model);
  if (model.provider && model.provider !== 'openai') throw new KeelError('invalid_argument', `unknown model provider '${model.provider}' (openai or anthropic)`);
  return openaiModel(model);
}

// Why a run was stopped, from its AbortSignal.
const abortReason = (signal) => String(signal.reason?.message || signal.reason || 'aborted');

const VERDICTS = new Set(['allow', 'allow_always', 'deny']);

// approve(request) may answer true, false, 'always', a verdict name, or {verdict, reason}.
function verdictOf(answer) {
  if (answer === true) return {verdict: 'allow', reason: ''};
  if (answer === 'always') return {verdict: 'allow_always', reason: ''};
  if (typeof answer === 'string' && VERDICTS.has(answer)) return {verdict: answer, reason: ''};
  if (answer && typeof answer === 'object' && VERDICTS.has(answer.verdict)) return {verdict: answer.verdict, reason: answer.reason || ''};
  return {verdict: 'deny', reason: typeof answer?.reason === 'string' ? answer.reason : 'refused in the page'};
}

export class Agent {
  constructor(core, options) {
    this.core = core;
    this.model = modelFrom(options.model);
    this.tools = options.tools || [];
    const names = new Set();
    for (const t of this.tools) {
      if (!t || typeof t.name !== 'string' || typeof t.run !== 'function') throw new KeelError('invalid_argument', 'every tool needs a name and a run(args) function');
      if (names.has(t.name)) throw new KeelError('invalid_argument', `two tools are named '${t.name}'`);
      names.add(t.name);
    }
    this.config = {...(options.config || {})};
    if (options.maxRounds !== undefined) this.config.max_rounds = options.maxRounds;
    // keel's sectioned system prompt, made by the core as for the native hosts: these instructions
    // (keel's own when empty), the tools (with their schemas and call format under the text
    // protocol) and project instructions such as an AGENTS.md.
    this.instructions = options.systemPrompt ?? '';
    this.projectInstructions = options.projectInstructions ?? '';
    this.approve = options.approve || null;
    this.store = options.store || null;
    // Validate the configuration now rather than on the first run.
    this.core.createMachine(this.spec({task: 'check'})).free();
  }

  // The core's machine spec: this agent's settings plus `fields` ({task, earlier} or {resume}).
  spec(fields) {
    return {config: this.config, tools: this.tools.map(toolSpecOf), instructions: this.instructions,
      project_instructions: this.projectInstructions, incremental_requests: true, ...fields};
  }

  // Runs `task` to its end. Resolves to {answer, error, events, usage, rounds, sessionId}: `error`
  // ({kind, message}) is set when the run failed, and every step is in `events` (also passed to
  // onEvent as it happens). A session id continues that stored conversation; every message the core
  // commits is appended to the store before the host acts on the decision.
  async run(task, {onEvent, signal, sessionId} = {}) {
    if (typeof task !== 'string' || !task.trim()) throw new KeelError('invalid_argument', 'run needs a non-empty task');
    const session = sessionId || (this.store ? randomId('ses_') : '');
    return this.execute({task, session, load: Boolean(this.store && sessionId)}, {onEvent, signal});
  }

  // Runs `task` after `earlier` (messages in chat_message_to_json's form), storing nothing.
  runConversation(task, earlier, {onEvent, signal} = {}) {
    return this.execute({task, earlier, session: ''}, {onEvent, signal});
  }

  // One round per call, for hosts that keep nothing between invocations: `body` is {task} to
  // start or {checkpoint: {conversation, run_start}, approvals?: [{call_id, verdict, reason}]} to go
  // on. Resolves to {events, checkpoint, done, answer?, error?, approvals_needed?}: the checkpoint
  // is the whole conversation so far. An invocation ends before its second model call, or before
  // the model call that follows the tools it ran; a round that needs approval stops before its
  // calls, and the next invocation with `approvals` runs them.
  async runOneRound(body, {onEvent, signal} = {}) {
    if (!body || typeof body !== 'object') throw new KeelError('invalid_argument', 'the step body must be an object');
    let setup;
    if (body.checkpoint) {
      const cp = body.checkpoint;
      if (!Array.isArray(cp.conversation) || !Number.isInteger(cp.run_start)) {
        throw new KeelError('invalid_argument', "'checkpoint' needs 'conversation' (messages) and 'run_start' (an index)");
      }
      if (body.approvals !== undefined && !Array.isArray(body.approvals)) throw new KeelError('invalid_argument', "'approvals' must be an array");
      setup = {resume: {conversation: cp.conversation, run_start: cp.run_start, calls_not_started: Boolean(cp.calls_not_started)},
        approvals: body.approvals || [], oneRound: true, session: ''};
    } else if (typeof body.task === 'string' && body.task.trim()) {
      setup = {task: body.task, earlier: [], oneRound: true, session: ''};
    } else {
      throw new KeelError('invalid_argument', "the step body needs a 'task' or a 'checkpoint'");
    }
    const r = await this.execute(setup, {onEvent, signal});
    const out = {events: r.events, checkpoint: {conversation: r.conversation, run_start: r.runStart}, done: !r.paused};
    if (r.paused?.approvals_needed) {
      out.approvals_needed = r.paused.approvals_needed;
      out.checkpoint.calls_not_started = true;
    }
    if (!r.paused) {
      if (r.error) out.error = r.error;
      else out.answer = r.answer;
    }
    return out;
  }

  async execute(setup, {onEvent, signal}) {
    const runId = randomId('run_');
    const started = nowMs();
    const events = [];
    let round = 0;
    const emit = (type, fields = {}) => {
      const ev = {v: 1, type, t_ms: Math.round(nowMs() - started), run_id: runId, ...(round ? {round} : {}), ...fields};
      events.push(ev);
      try {
        onEvent?.(ev);
      } catch {
        // a throwing listener must not break the run
      }
      return ev;
    };
    const usage = {prompt_tokens: 0, completion_tokens: 0};
    const counters = {model_calls: 0, tool_calls: 0};
    const session = setup.session;
    const conversation = setup.resume ? [...setup.resume.conversation] : [...(setup.earlier || [])];
    let runStart = setup.resume ? setup.resume.run_start : -1;
    const result = (fields) => ({events, usage, rounds: round, sessionId: session, conversation, runStart, answer: null, error: null, ...fields});
    const finishWith = (error, answer) => {
      const common = {rounds: round, ...counters, usage, duration_ms: Math.round(nowMs() - started), ...(session ? {session_id: session} : {})};
      emit('status', {status: error ? 'failed' : 'finished'});
      if (error) emit('run_failed', {kind: error.kind, error: error.message, exit_code: 1, ...common});
      else emit('run_finished', {answer, exit_code: 0, ...common});
      return result({answer: error ? null : answer, error});
    };

    emit('run_started', {task: setup.task ?? '', model: this.model.describe?.() || 'model', ...(session ? {session_id: session} : {})});
    if (setup.load) {
      try {
        conversation.push(...await this.store.load(session));
      } catch (e) {
        return finishWith({kind: 'store', message: `cannot read session ${session}: ${e.message || e}`});
      }
    }
    const spec = this.spec(setup.resume ? {resume: setup.resume} : {task: setup.task, earlier: conversation});
    let machine;
    try {
      machine = this.core.createMachine(spec);
    } catch (e) {
      return finishWith({kind: 'invalid_argument', message: e.message});
    }
    const given = new Map((setup.approvals || []).map((a) => [a.call_id, verdictOf(a)]));
    // Requests come incrementally: "messages_from" leading messages are the previous request's, and
    // "tools_unchanged" says the tools are the previous request's.
    let sent = [];
    let sentTools = null;
    const fullRequest = (request) => {
      const from = request.messages_from || 0;
      if (from > sent.length) throw new KeelError('internal', `the core reused ${from} messages of a request that had ${sent.length}`);
      if (request.tools_unchanged && !sentTools) throw new KeelError('internal', 'the core reused the tools of a request it never sent');
      sent = from ? sent.slice(0, from).concat(request.messages) : request.messages;
      const {messages_from: _, tools_unchanged: same, ...rest} = request;
      if (same) rest.tools = sentTools;
      else sentTools = rest.tools || [];
      return {...rest, messages: sent};
    };
    try {
      let d = machine.start();
      for (;;) {
        if (d.action === 'error') return finishWith({kind: 'internal', message: d.error});
        for (const m of d.committed || []) {
          if (runStart < 0 && m.role === 'user' && m.metadata?.kind === 'task') runStart = conversation.length;
          conversation.push(m);
        }
        if (this.store && session && d.committed?.length) {
          try {
            await this.store.append(session, d.committed);
          } catch (e) {
            emit('error', {source: 'store', error: `the session could not be saved: ${e.message || e}`});
            machine.step({type: 'aborted', reason: `the session store failed: ${e.message || e}`});
            return finishWith({kind: 'store', message: `the session could not be saved (${e.name || 'Error'}: ${e.message || e}); what was saved before is kept`});
          }
        }
        for (const g of d.guards || []) emit('guard_fired', g);
        for (const p of d.plan_steps || []) emit('plan_step', p);
        for (const g of d.gate_decisions || []) emit('approval_decided', {call_id: g.call.id, verdict: g.verdict, reason: g.reason});
        if (signal?.aborted && d.action !== 'finish' && d.action !== 'fail') {
          d = machine.step({type: 'aborted', reason: abortReason(signal)});
          continue;
        }
        if (setup.oneRound && d.action === 'call_model' && (counters.model_calls > 0 || counters.tool_calls > 0)) {
          emit('status', {status: 'paused'});
          return result({paused: {reason: 'round_done'}});
        }
        switch (d.action) {
          case 'call_model':
          case 'call_planner':
          case 'summarize': {
            const visible = d.action === 'call_model';
            if (visible) {
              round = d.round;
              emit('status', {status: 'calling_model'});
            } else emit('status', {status: d.action === 'summarize' ? 'compacting' : 'planning'});
            counters.model_calls += 1;
            let request;
            try {
              request = fullRequest(d.request);
            } catch (e) {
              return finishWith({kind: 'internal', message: e.message});
            }
            let event;
            try {
              const reply = await this.model.complete(request, {
                signal,
                onDelta: visible ? (text) => emit('model_delta', {text}) : undefined,
                onReasoningDelta: visible ? (text) => emit('reasoning_delta', {text}) : undefined,
                onRetry: (r) => emit('model_retry', r),
              });
              usage.prompt_tokens += reply.usage?.prompt_tokens || 0;
              usage.completion_tokens += reply.usage?.completion_tokens || 0;
              if (visible) emit('model_reply', {text: reply.text, tool_calls: reply.tool_calls, finish_reason: reply.finish_reason, usage: reply.usage, ...(reply.reasoning ? {reasoning: reply.reasoning} : {})});
              event = {type: 'model_replied', reply};
            } catch (e) {
              if (signal?.aborted) event = {type: 'aborted', reason: abortReason(signal)};
              else event = {type: 'model_failed', message: e.message || String(e)};
            }
            d = machine.step(event);
            break;
          }
          case 'ask_approval': {
            if (setup.oneRound && !d.requests.every((r) => given.has(r.call.id))) {
              for (const r of d.requests) emit('approval_requested', r);
              emit('status', {status: 'waiting_approval'});
              // The calls have not started: the conversation ends with the reply that made them.
              return result({paused: {reason: 'approval', approvals_needed: d.requests}});
            }
            emit('status', {status: 'waiting_approval'});
            const decisions = [];
            for (const r of d.requests) {
              emit('approval_requested', r);
              let v = given.get(r.call.id);
              if (!v && !this.approve) v = {verdict: 'deny', reason: 'no approver: this host was created without approve()'};
              else if (!v) {
                try {
                  v = verdictOf(await this.approve(r));
                } catch (e) {
                  v = {verdict: 'deny', reason: `the approver failed: ${e.message || e}`};
                }
              }
              emit('approval_decided', {call_id: r.call.id, ...v});
              decisions.push({call_id: r.call.id, ...v});
            }
            d = machine.step({type: 'approvals_given', decisions});
            break;
          }
          case 'run_tools': {
            emit('status', {status: 'running_tools'});
            counters.tool_calls += d.calls.length;
            const results = await runToolCalls(this.tools, d.calls, {signal, emit});
            d = machine.step({type: 'tools_finished', results});
            break;
          }
          case 'finish':
            return finishWith(null, d.answer);
          case 'fail':
            return finishWith({kind: d.kind, message: d.reason});
          default:
            return finishWith({kind: 'internal', message: `the core asked for '${d.action}', which this host does not know`});
        }
      }
    } finally {
      machine.free();
    }
  }
}

// Loads the core (once per page or process) and makes an agent. See keel.d.ts for the options.
export async function createAgent(options = {}) {
  const core = await loadCore(options.core || {});
  return new Agent(core, options);
}
