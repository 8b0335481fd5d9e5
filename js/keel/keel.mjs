// keel for JavaScript: the same agent core as the native runtime, compiled to WebAssembly, in the
// browser, in workers, under Node and Deno. See keel.d.ts for the API and README.md.
export {createAgent, Agent, modelFrom} from './agent.mjs';
export {loadCore, KeelCore, Machine, KeelError} from './core.mjs';
export {openaiModel, openaiBody} from './openai_model.mjs';
export {anthropicModel, anthropicBody} from './anthropic_model.mjs';
export {ModelError, DEFAULT_RETRY} from './retry.mjs';
export {readSse} from './sse.mjs';
export {toolSpecOf} from './tool_runner.mjs';
export {builtinBrowserTools, opfsPathParts} from './browser_tools.mjs';
export {openIndexedDbStore} from './indexeddb_store.mjs';
export {wllamaModel} from './wllama_model.mjs';
