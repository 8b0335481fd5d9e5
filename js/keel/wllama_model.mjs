// A local model in the page: llama.cpp compiled to WebAssembly by @wllama/wllama (3.x), with the
// prompt text and the tool-call grammar of keel's native in-process backend, both made by the core
// (the render_chat and tool_grammar ops of src/wasm/keel_wasm.cpp).
//
//   import {Wllama} from '@wllama/wllama';
//   const wllama = new Wllama({default: '/node_modules/@wllama/wllama/esm/wasm/wllama.wasm'});
//   await wllama.loadModel([ggufBlob], {n_ctx: 4096});
//   const agent = await createAgent({model: wllamaModel({wllama, tools}), tools,
//                                    config: {tool_protocol: 'text'}});
//
// The reply goes back as the text the model wrote; the core reads the calls in it (it knows the
// call syntaxes of the families this backend writes). With `grammar` (the default) sampling on a
// tool round is constrained to calls in the family's syntax whose arguments match the tools'
// schemas: lazily from the call's opening text with toolChoice 'auto', from the first token with
// 'required'. wllama passes the request to llama.cpp's server code, which takes a lazy grammar and
// its trigger words (grammar_lazy, grammar_triggers) as the native backend's sampler does, so the
// 'auto' mode needs no fallback. The final round (and a tool_choice of 'none') has no tool grammar.
import {KeelError, loadCore} from './core.mjs';
import {toolSpecOf} from './tool_runner.mjs';

// llama.cpp's common_grammar_trigger_type: a trigger that is a literal word.
const TRIGGER_WORD = 1;

// Free text of whole UTF-8 characters. wllama 3.13 serializes each result as JSON without
// replacing invalid UTF-8, so a token that is a stray byte (a byte-fallback piece of a weak or
// random model) makes the result unreadable and the call fails ("Invalid typed array length"); a
// grammar rejects such tokens, since llama.cpp matches grammars on decoded characters. Text before
// a lazy grammar's trigger is not covered, nor a reply the token limit cuts inside a character.
const UTF8_TEXT_GBNF = 'root ::= [^\\x00]*\n';

// options:
//   wllama            a Wllama instance with a model loaded (required)
//   template          the chat template text when the model's own (getChatTemplate()) is missing
//                     or should be overridden; family ('chatml', 'llama3', 'mistral', 'gemma')
//                     names the prompt format directly. The core does not run Jinja: a template
//                     picks its family by its markers, and ChatML is used when none matches.
//   tools             the agent's tools (or their specs), for the grammar when requests carry
//                     none, as with tool_protocol 'text' (whose system prompt, built by the core,
//                     already documents them); describeTools: true also describes them in the
//                     family's own tool section
//   grammar           constrain tool rounds to valid calls (default true)
//   toolChoice        'auto' (default: prose or calls) or 'required' (every tool round is calls)
//   maxCallsPerReply  1..16 (default 16); maxStringChars > 0 closes unbounded strings after that
//                     many characters (a small model can loop inside one)
//   nPredict          tokens per reply unless the request's sampling says (default 512)
//   temperature, topP, topK, minP, seed   defaults for what the request's sampling leaves unset
//   validUtf8         constrain free text (rounds without a tool grammar) to whole UTF-8
//                     characters (default true; see UTF8_TEXT_GBNF)
//   stream            pass tokens to onDelta as they come (default true)
//   core              a loaded KeelCore (default: loadCore())
//   name              what the replies' `model` and describe() call it
export function wllamaModel(options = {}) {
  const {wllama} = options;
  if (!wllama || typeof wllama.createCompletion !== 'function') {
    throw new TypeError('wllamaModel needs {wllama}: a Wllama instance (@wllama/wllama 3.x) with a model loaded');
  }
  const grammarOn = options.grammar !== false;
  const toolChoice = options.toolChoice || 'auto';
  if (toolChoice !== 'auto' && toolChoice !== 'required') throw new TypeError("wllamaModel's toolChoice must be 'auto' or 'required'");
  const ownTools = (options.tools || []).map(toolSpecOf);
  const name = options.name || 'wllama';
  let format = null;  // {family, recognised} once known

  const source = () => {
    if (options.family) return {family: options.family};
    const template = options.template ?? (typeof wllama.getChatTemplate === 'function' ? wllama.getChatTemplate() : null);
    return template ? {template} : {};
  };
  const ask = (core, request) => {
    const answer = core.call(request);
    if (answer.error) throw new KeelError('invalid_argument', `wllama backend: ${answer.error}`);
    return answer;
  };

  return {
    describe: () => `local llama.cpp in WebAssembly (wllama) ${name}` +
      (format ? ` (${format.recognised ? format.family + ' format' : 'built-in chatml format: the template matches no family'})` : ''),

    async complete(request, {signal, onDelta} = {}) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new KeelError('aborted', 'aborted');
      const core = options.core || await loadCore();
      const from = source();
      // The tools are described in the family's format, in the first system text: those the request
      // carries (tool_protocol 'native'), else, with describeTools, the `tools` option (tool_protocol
      // 'text' sends none: the core's system prompt documents them). The option's are described on
      // every round, the final one too, so the prompt's prefix stays the same and its KV cache is
      // reused.
      const requestTools = request.tools || [];
      const described = requestTools.length ? requestTools : options.describeTools === true ? ownTools : [];
      const rendered = ask(core, {op: 'render_chat', ...from, messages: request.messages, tools: described,
        add_generation_prompt: true, add_bos: false});  // llama.cpp adds the BOS token itself
      format = {family: rendered.family, recognised: rendered.recognised};

      const s = request.sampling || {};
      const params = {
        prompt: rendered.prompt,
        max_tokens: s.max_tokens ?? options.nPredict ?? 512,
        temperature: s.temperature ?? options.temperature ?? 0,
        stop: [...rendered.stop, ...(s.stop || [])],
        cache_prompt: true,  // the earlier rounds' prefix stays in the KV cache
      };
      const optional = {top_p: s.top_p ?? options.topP, top_k: s.top_k ?? options.topK, min_p: s.min_p ?? options.minP,
        seed: s.seed ?? options.seed, repeat_penalty: s.repeat_penalty};
      for (const [k, v] of Object.entries(optional)) if (v !== undefined) params[k] = v;

      const choice = request.tool_choice || '';
      const toolsOn = request.tools_enabled && !request.final_round && choice !== 'none';
      let callTools = requestTools.length ? requestTools : ownTools;
      if (choice && choice !== 'auto' && choice !== 'required') callTools = callTools.filter((t) => t.name === choice);
      if (grammarOn && toolsOn && callTools.length) {
        const required = toolChoice === 'required' || (choice !== '' && choice !== 'auto');
        const g = ask(core, {op: 'tool_grammar', ...from, tools: callTools, choice: required ? 'required' : 'auto',
          max_calls: options.maxCallsPerReply ?? 16, max_string_chars: options.maxStringChars ?? 0});
        params.grammar = g.gbnf;
        if (g.triggers.length) {
          params.grammar_lazy = true;
          params.grammar_triggers = g.triggers.map((value) => ({type: TRIGGER_WORD, value}));
          // A trigger that is one special token of the vocabulary (Qwen's <tool_call>) must be kept
          // as a token, not dropped from the text; a word of several tokens is unaffected.
          params.preserved_tokens = g.triggers;
        }
      } else if (options.validUtf8 !== false) {
        params.grammar = UTF8_TEXT_GBNF;
      }

      const reply = {text: '', reasoning: '', tool_calls: [], finish_reason: '', usage: {prompt_tokens: 0, completion_tokens: 0}, model: name};
      const take = (chunk) => {
        const c = chunk?.choices?.[0];
        if (c?.finish_reason) reply.finish_reason = c.finish_reason;
        const u = chunk?.usage;
        const t = chunk?.timings;
        if (u) reply.usage = {prompt_tokens: u.prompt_tokens || 0, completion_tokens: u.completion_tokens || 0};
        else if (t && !reply.usage.completion_tokens) reply.usage = {prompt_tokens: t.prompt_n || 0, completion_tokens: t.predicted_n || 0};
        if (u?.prompt_tokens_details?.cached_tokens) reply.usage.cached_prompt_tokens = u.prompt_tokens_details.cached_tokens;
        return c?.text || '';
      };
      try {
        if (onDelta && options.stream !== false) {
          await wllama.createCompletion({...params, stream: true, stream_options: {include_usage: true}, abortSignal: signal,
            onData: (chunk) => {
              const piece = take(chunk);
              if (piece) {
                reply.text += piece;
                onDelta(piece);
              }
            }});
        } else {
          reply.text = take(await wllama.createCompletion({...params, stream: false, abortSignal: signal}));
          if (reply.text) onDelta?.(reply.text);
        }
      } catch (e) {
        if (signal?.aborted) throw e;
        const message = String(e?.message || e);
        // wllama's worker answers a result it could not serialize with no length (see UTF8_TEXT_GBNF).
        const hint = /Invalid typed array length/.test(message) ? ' (wllama could not serialize the reply: its text is probably not valid UTF-8)' : '';
        throw new KeelError('backend', `wllama: ${message}${hint}`);
      }
      if (!reply.finish_reason) reply.finish_reason = 'stop';
      return reply;
    },
  };
}
