// A small in-memory stand-in for `keel serve`'s API (docs/server.md) that the web UI's component
// test drives: sessions, messages, runs whose events are scripted, approvals, questions, steer,
// abort, session event streams with Last-Event-ID replay, skill proposals and the autopilot
// document of the operator console. It lets a test do what the real server cannot be made to do
// on cue, such as dropping an event stream or losing a race for a proposal.
//
//   const api = createFakeApi({token: 'T'});
//   const server = await startStaticServer({handler: api.handle});
//   api.dropStreamsAfter(3);          // the next stream closes after 3 events
//   api.dropStreams();                // every open stream closes now
//   api.lastEventIds                  // Last-Event-ID headers seen on reconnects
//   const p = api.addProposal({skill: 'triage', summary: '...'});   // a pending skill proposal
//   api.decideFirstElsewhere(p.id);   // the next decision of p finds it already decided (409)
//   api.setAutopilot({enabled: false});   // what GET /api/autopilot answers (a string: sent as is)
//   api.executions                    // ids of the proposals carried out, once per approval
//
// A message's run follows a script picked by a word in its content: "approve" (a shell call that
// waits for a decision), "ask" (a question), "plan" (a two-step plan), "slow" (streams until
// aborted or steered), anything else (a short streamed answer).

function json(res, status, body) {
  res.writeHead(status, {'Content-Type': 'application/json'});
  res.end(body === undefined ? '' : JSON.stringify(body));
}

function error(res, status, code, message) {
  json(res, status, {error: {code, message}});
}

function readBody(req) {
  return new Promise((resolve) => {
    const parts = [];
    req.on('data', (p) => parts.push(p));
    req.on('end', () => {
      const raw = Buffer.concat(parts).toString('utf8');
      try {
        resolve(raw ? JSON.parse(raw) : {});
      } catch {
        resolve(null);
      }
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function createFakeApi(options = {}) {
  const token = options.token || '';
  const sessions = new Map();
  const runs = new Map();
  const waiting = new Map();  // approval / question id -> resolve(answer)
  const lastEventIds = [];
  const requests = [];
  let dropAfter = 0;
  let counter = 0;
  const proposals = new Map();     // public id -> proposal, decided ones included
  const elsewhere = new Set();     // ids another client decides just before the next POST
  const executions = [];
  let proposalDelayMs = 0;
  let autopilot = {enabled: false};
  const nextId = (prefix) => `${prefix}_${(++counter).toString(16).padStart(6, '0')}`;

  function emit(session, data) {
    const id = session.events.length + 1;
    const event = {id, data: {v: 1, session_id: session.id, ...data}};
    session.events.push(event);
    for (const listener of Array.from(session.listeners)) listener(event);
  }

  function publicSession(s) {
    const {id, title, created_ms, updated_ms, active_run_id} = s;
    return {id, title, created_ms, updated_ms, model: 'openai/mock', profile: 'default', active_run_id};
  }

  async function runScript(session, run, content) {
    const base = {run_id: run.id};
    let round = 1;
    const ev = (type, fields = {}) => {
      if (run.aborted && type !== 'run_failed' && type !== 'status') return;  // an aborted run says only how it ended
      emit(session, {type, ...base, round, t_ms: Date.now() - run.started, ...fields});
    };
    ev('run_queued', {task: content, round: undefined});
    ev('run_started', {task: content, model: 'mock', round: undefined});
    ev('user_message', {content, round: undefined});
    ev('status', {status: 'calling_model'});
    ev('context', {tokens: {system: 700, tools: 1500, user: 40, assistant: 0, tool_results: 0, total: 2240}, context_window: 3000});
    if (/approve/.test(content)) {
      const call = {id: 'call_sh', name: 'shell', arguments: {command: 'echo hi'}};
      ev('model_reply', {text: '', tool_calls: [call], finish_reason: 'tool_calls'});
      const approvalId = nextId('ap');
      ev('approval_requested', {approval_id: approvalId, call, risk: 'high', reason: 'shell is high risk'});
      ev('run_suspended', {reason: 'waiting_approval'});
      const decision = await new Promise((resolve) => waiting.set(approvalId, resolve));
      ev('run_resumed', {reason: 'waiting_approval'});
      const verdict = decision === 'always' ? 'allow_always' : decision;
      ev('approval_decided', {call_id: call.id, verdict, reason: 'a person decided'});
      if (verdict !== 'deny') {
        ev('tool_call', call);
        ev('tool_result', {id: call.id, name: 'shell', status: 'ok', content: 'hi\n', duration_ms: 4, cached: false});
      }
      round = 2;
      ev('status', {status: 'calling_model'});
    } else if (/ask/.test(content)) {
      const questionId = nextId('q');
      ev('question', {question_id: questionId, question: 'Which colour?', options: ['red', 'blue'], allow_free_text: true});
      const answer = await new Promise((resolve) => waiting.set(questionId, resolve));
      ev('question_answered', {question_id: questionId, answer});
      round = 2;
      ev('model_delta', {text: `You chose ${answer}.`});
      ev('run_finished', {answer: `You chose ${answer}.`, rounds: 2, model_calls: 2, tool_calls: 1, usage: {prompt_tokens: 1, completion_tokens: 1}});
      return;
    } else if (/plan/.test(content)) {
      const step = (index, state, tool) => ev('plan_step', {index, steps: 2, state, tool, save_as: `s${index}`, alias_inferred: false, why: `step ${index}`});
      ev('model_delta', {text: '{"plan": [...]}'});
      step(0, 'planned', 'parse_json');
      step(1, 'planned', 'math_aggregate');
      step(0, 'executing', 'parse_json');
      await sleep(50);
      step(0, 'done', 'parse_json');
      step(1, 'executing', 'math_aggregate');
      step(1, 'failed', 'math_aggregate');
      ev('guard_fired', {kind: 'plan_halted', detail: 'step 2 failed', tool: 'math_aggregate'});
    } else if (/slow/.test(content)) {
      for (let i = 0; i < 400 && !run.aborted && !run.steered; i++) {
        ev('model_delta', {text: `word${i} `});
        await sleep(50);
      }
      if (run.aborted) {
        // As keel serve does: the run's last status is "failed", then run_failed says it was aborted.
        ev('status', {status: 'failed'});
        await sleep(400);
        ev('run_failed', {kind: 'aborted', error: 'aborted by request', exit_code: 130, rounds: 1});
        return;
      }
      round = 2;
    }
    const answer = `Answer to: **${content}**`;
    for (const piece of answer.match(/.{1,6}/g)) {
      ev('model_delta', {text: piece});
      await sleep(10);
    }
    ev('model_reply', {text: answer, tool_calls: [], finish_reason: 'stop'});
    ev('status', {status: 'finished'});
    ev('run_finished', {answer, rounds: round, model_calls: round, tool_calls: 0, usage: {prompt_tokens: 10, completion_tokens: 5}});
  }

  async function startRun(session, content, payload) {
    const run = {id: nextId('r'), session_id: session.id, state: 'running', task: content, rounds: 0,
      usage: {prompt_tokens: 0, completion_tokens: 0}, started: Date.now(), payload};
    runs.set(run.id, run);
    session.active_run_id = run.id;
    session.messages.push({seq: session.messages.length + 1, role: 'user', content});
    try {
      await runScript(session, run, content);
    } finally {
      run.state = run.aborted ? 'aborted' : 'finished';
      session.active_run_id = null;
      session.updated_ms = Date.now();
      session.messages.push({seq: session.messages.length + 1, role: 'assistant', content: `Answer to: **${content}**`});
    }
  }

  function stream(req, res, session, url) {
    const header = req.headers['last-event-id'];
    if (header !== undefined) lastEventIds.push(header);
    const after = Number(header !== undefined ? header : url.searchParams.get('after') ?? Infinity);
    res.writeHead(200, {'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache'});
    let sent = 0;
    const limit = dropAfter;
    dropAfter = 0;
    const send = (event) => {
      res.write(`id: ${event.id}\nevent: ${event.data.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
      sent += 1;
      if (limit && sent >= limit) {
        session.listeners.delete(send);
        res.end();
      }
    };
    for (const event of session.events) {
      if (event.id > after && !res.writableEnded) send(event);
    }
    if (res.writableEnded) return;
    send.end = () => {
      session.listeners.delete(send);
      res.end();
    };
    session.listeners.add(send);
    req.on('close', () => session.listeners.delete(send));
  }

  function addProposal(fields = {}) {
    const id = `sp_${(++counter).toString(16).padStart(32, '0')}`;
    const proposal = {id, skill: 'triage', tool: '', arguments: {}, summary: '', status: 'pending', result: '',
      created_ms: Date.now(), ...fields};
    proposals.set(id, proposal);
    return proposal;
  }

  // Decides like the server: the state changes before the (delayed) answer, so a second request
  // for the same proposal, however soon, gets 409 and the action runs once.
  async function decideProposal(res, id, body) {
    if (!/^sp_[0-9a-f]{32}$/.test(id) || !proposals.has(id)) {
      return error(res, 404, 'not_found', `no skill proposal '${id}' in this workspace`);
    }
    if (body.decision !== 'approve' && body.decision !== 'reject') {
      return error(res, 400, 'bad_request', `'decision' must be approve or reject, got '${body.decision}'`);
    }
    const proposal = proposals.get(id);
    if (elsewhere.delete(id) && proposal.status === 'pending') {
      proposal.status = 'rejected';
      proposal.result = 'rejected by another operator';
    }
    if (proposal.status !== 'pending') {
      return error(res, 409, 'already_decided', `skill proposal ${id} was already decided (${proposal.status})`);
    }
    if (body.decision === 'approve') {
      executions.push(id);
      proposal.status = proposal.fails ? 'failed' : 'executed';
      proposal.result = proposal.fails || `${proposal.tool || proposal.skill} done: wrote 1 file`;
    } else {
      proposal.status = 'rejected';
      proposal.result = '';
    }
    if (proposalDelayMs) await sleep(proposalDelayMs);
    const {fails, ...shown} = proposal;
    json(res, 200, shown);
  }

  async function handle(req, res, url) {
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'api') return false;
    requests.push(`${req.method} ${url.pathname}`);
    if (token && req.headers.authorization !== `Bearer ${token}`) {
      error(res, 401, 'unauthorized', 'missing or wrong bearer token');
      return true;
    }
    const body = ['POST', 'PUT'].includes(req.method) ? await readBody(req) : {};
    if (body === null) {
      error(res, 400, 'bad_request', 'malformed JSON');
      return true;
    }
    if (req.method === 'POST' && parts[1] === 'skills' && parts[2] === 'proposals' && parts.length === 4) {
      await decideProposal(res, parts[3], body);
      return true;
    }
    const route = `${req.method} /${parts.slice(1).map((p, i) => (i % 2 === 1 ? ':id' : p)).join('/')}`;
    const session = parts[1] === 'sessions' && parts[2] ? sessions.get(parts[2]) : null;
    const missing = () => error(res, 404, 'not_found', `no such id: ${parts[2]}`);
    switch (route) {
      case 'GET /models':
        json(res, 200, {default: 'default', profiles: [
          {name: 'default', model: 'openai/mock', max_rounds: 8, description: 'the mock'},
          {name: 'careful', model: 'openai/mock', max_rounds: 3, description: 'fewer rounds'}]});
        return true;
      case 'GET /skills':
        json(res, 200, {knowledge: [], executable: [{name: 'triage'}], proposals: Array.from(proposals.values())
          .filter((p) => p.status === 'pending').map(({fails, ...shown}) => shown)});
        return true;
      case 'GET /autopilot':
        if (typeof autopilot === 'string') {
          res.writeHead(200, {'Content-Type': 'application/json'});
          res.end(autopilot);
        } else {
          json(res, 200, autopilot);
        }
        return true;
      case 'GET /sessions':
        json(res, 200, {sessions: Array.from(sessions.values()).reverse().map(publicSession)});
        return true;
      case 'POST /sessions': {
        const s = {id: nextId('s'), title: body.title || '', created_ms: Date.now(), updated_ms: Date.now(),
          active_run_id: null, messages: [], events: [], listeners: new Set()};
        sessions.set(s.id, s);
        json(res, 201, publicSession(s));
        return true;
      }
      case 'GET /sessions/:id':
        if (!session) return missing(), true;
        json(res, 200, {...publicSession(session), messages: session.messages,
          runs: Array.from(runs.values()).filter((r) => r.session_id === session.id)});
        return true;
      case 'DELETE /sessions/:id':
        if (!session) return missing(), true;
        if (session.active_run_id) return error(res, 409, 'session_busy', 'a run is active'), true;
        sessions.delete(session.id);
        json(res, 204);
        return true;
      case 'POST /sessions/:id/fork': {
        if (!session) return missing(), true;
        const copy = {...session, id: nextId('s'), title: `${session.title} (fork)`, active_run_id: null,
          messages: session.messages.slice(), events: [], listeners: new Set()};
        sessions.set(copy.id, copy);
        json(res, 201, publicSession(copy));
        return true;
      }
      case 'POST /sessions/:id/messages':
        if (!session) return missing(), true;
        if (typeof body.content !== 'string') return error(res, 400, 'bad_request', 'content must be a string'), true;
        if (session.active_run_id) return error(res, 409, 'session_busy', `run ${session.active_run_id} is active`), true;
        startRun(session, body.content, body);
        json(res, 202, {run_id: session.active_run_id, session_id: session.id});
        return true;
      case 'GET /sessions/:id/events':
        if (!session) return missing(), true;
        stream(req, res, session, url);
        return true;
      case 'POST /runs/:id/abort':
      case 'POST /runs/:id/steer': {
        const run = runs.get(parts[2]);
        if (!run) return missing(), true;
        if (run.state !== 'running') return error(res, 409, 'run_not_active', 'the run has ended'), true;
        if (parts[3] === 'abort') run.aborted = true;
        else {
          run.steered = true;
          emit(sessions.get(run.session_id), {type: 'steer', run_id: run.id, content: body.content});
        }
        json(res, 202, {id: run.id, state: run.state});
        return true;
      }
      case 'POST /approvals/:id':
      case 'POST /questions/:id': {
        const resolve = waiting.get(parts[2]);
        if (!resolve) return error(res, 409, 'already_decided', 'already answered'), true;
        waiting.delete(parts[2]);
        const answer = parts[1] === 'approvals' ? body.decision :
          (body.answer ?? ['red', 'blue'][body.option_index]);
        resolve(answer);
        json(res, 200, parts[1] === 'approvals' ? {id: parts[2], decision: answer} : {id: parts[2], answer});
        return true;
      }
      default:
        error(res, 404, 'not_found', `unknown path ${url.pathname}`);
        return true;
    }
  }

  return {
    handle: (req, res, url) => {
      if (!url.pathname.startsWith('/api/')) return false;
      handle(req, res, url);
      return true;
    },
    dropStreamsAfter: (n) => { dropAfter = n; },
    // Ends every open event stream now, as a network drop would.
    dropStreams: () => {
      for (const session of sessions.values()) {
        for (const listener of Array.from(session.listeners)) listener.end();
      }
    },
    lastEventIds,
    requests,
    runs,
    // A pending proposal (fields override the defaults; `fails: 'why'` makes its approval fail).
    addProposal,
    decideFirstElsewhere: (id) => { elsewhere.add(id); },
    setProposalDelay: (ms) => { proposalDelayMs = ms; },
    setAutopilot: (doc) => { autopilot = doc; },
    proposals,
    executions,
  };
}
