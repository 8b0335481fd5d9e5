/// <reference lib="dom" />
// keel for JavaScript: the agent core of the native runtime, compiled to WebAssembly, for pages,
// workers, Node and Deno. The core makes every decision (guards, the repair round, continuation
// prompts, the context pipeline, plans with references, approvals); this package carries them out.
//
//   import {createAgent} from './keel.mjs';
//   const agent = await createAgent({
//     model: {baseUrl: 'http://127.0.0.1:11434/v1', apiKey, name: 'qwen2.5:7b'},   // or {provider: 'anthropic', ...}
//     tools: [...builtinBrowserTools(), {name, description, parameters, run: async (args) => '...'}],
//     maxRounds: 20, approve: async (request) => true,
//   });
//   const {answer, error, events} = await agent.run('task', {onEvent, signal});

/** A conversation message in the core's JSON form. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
  reasoning?: string;
  metadata?: Record<string, string>;
}

export interface ToolCall {
  id: string;
  name: string;
  /** JSON object text. */
  arguments: string;
}

/** What a model backend is asked: the core's request (model_request_to_json). */
export interface ModelRequest {
  messages: ChatMessage[];
  tools: {name: string; description: string; parameters: object}[];
  tools_enabled: boolean;
  round: number;
  final_round: boolean;
  sampling: {temperature?: number; max_tokens?: number; top_p?: number; seed?: number; top_k?: number; min_p?: number; repeat_penalty?: number; stop?: string[]};
  tool_choice?: string;
  response_schema?: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_prompt_tokens?: number;
}

export interface ModelReply {
  text: string;
  reasoning: string;
  tool_calls: ToolCall[];
  finish_reason: string;
  usage: Usage;
  model: string;
}

/** A model backend: anything with complete(). Throw a ModelError (or any Error) on failure. */
export interface ModelBackend {
  complete(request: ModelRequest, options?: {
    signal?: AbortSignal;
    onDelta?: (text: string) => void;
    onReasoningDelta?: (text: string) => void;
    onRetry?: (retry: {attempt: number; error: string; delay_ms: number}) => void;
  }): Promise<ModelReply>;
  describe?(): string;
}

/** Retries of the built-in backends: 408, 409, 429 and 5xx, network errors and timeouts. */
export interface RetryOptions {
  /** Attempts in all (default 4). */
  maxAttempts?: number;
  /** Upper bound of the first full-jitter wait (default 500 ms); Retry-After replaces it. */
  initialDelayMs?: number;
  /** Upper bound of any wait (default 20000 ms). */
  maxDelayMs?: number;
  /** Growth of the bound per attempt (default 2). */
  multiplier?: number;
}

export interface HttpModelOptions {
  /** 'openai' (default: any OpenAI-compatible server) or 'anthropic'. */
  provider?: 'openai' | 'anthropic';
  /** e.g. http://127.0.0.1:11434/v1 (OpenAI-compatible); https://api.anthropic.com (Anthropic, the default). */
  baseUrl?: string;
  apiKey?: string;
  /** The model name the server knows. */
  name?: string;
  headers?: Record<string, string>;
  /** Stream replies (default true). */
  stream?: boolean;
  /** Per attempt (default 120000 ms). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Anthropic: max_tokens when the request sets none (default 4096). */
  maxTokens?: number;
  fetch?: typeof fetch;
}

/** A tool the host runs. */
export interface Tool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters?: object;
  /** Reads only: runs alongside other reads, never asked about at the default threshold. */
  readOnly?: boolean;
  concurrencySafe?: boolean;
  /** Calls at or above the approval threshold (default 'high') go to approve(). */
  risk?: 'low' | 'medium' | 'high';
  /** Default 60000 ms; past it the call ends with status 'timeout'. */
  timeoutMs?: number;
  /** The result (a string, or a value sent as JSON). A throw is an error result the model sees. */
  run(args: any, context: {signal: AbortSignal; call: ToolCall}): unknown | Promise<unknown>;
}

export interface ApprovalRequest {
  call: ToolCall;
  risk: 'low' | 'medium' | 'high';
  reason: string;
}

export type ApprovalAnswer = boolean | 'always' | 'allow' | 'allow_always' | 'deny' | {verdict: 'allow' | 'allow_always' | 'deny'; reason?: string};

/** Where sessions live: every message the core commits is appended before the host acts on it. */
export interface SessionStore {
  load(sessionId: string): Promise<ChatMessage[]>;
  /** All or nothing: a failed append must leave what was stored before. */
  append(sessionId: string, messages: ChatMessage[]): Promise<void>;
}

export interface AgentOptions {
  model: HttpModelOptions | ModelBackend;
  tools?: Tool[];
  /** The core instructions of keel's sectioned system prompt (keel's own when absent); the core adds
   * the tools (with schemas and the call format under tool_protocol 'text') and projectInstructions. */
  systemPrompt?: string;
  /** e.g. the text of an AGENTS.md. */
  projectInstructions?: string;
  maxRounds?: number;
  /** More of the core's settings: max_empty_replies, repeated_failure_limit, near_duplicate_threshold,
   * result_char_budget, approval_threshold, tool_protocol, context_window, context_threshold,
   * recency_rounds, summary_cooldown_rounds, planner, planner_timeout_ms, max_tokens, max_cost, ... */
  config?: Record<string, unknown>;
  /** Asked about calls that need approval; without it they are refused. */
  approve?: (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;
  store?: SessionStore;
  /** Where the core comes from (default: keel_core.wasm next to this module). */
  core?: {wasmBinary?: Uint8Array; wasmUrl?: string | URL};
}

/** keel's event schema, version 1 (docs/events.md), plus 'error' {source: 'store', error}. */
export interface KeelEvent {
  v: 1;
  type: 'run_started' | 'status' | 'model_delta' | 'reasoning_delta' | 'model_retry' | 'model_reply' | 'approval_requested'
    | 'approval_decided' | 'tool_call' | 'tool_result' | 'guard_fired' | 'plan_step' | 'run_finished' | 'run_failed' | 'error';
  t_ms: number;
  run_id: string;
  round?: number;
  [field: string]: unknown;
}

export interface RunResult {
  /** The answer; null when the run failed. */
  answer: string | null;
  /** Why the run failed: kind is guardrail, model_output, backend, aborted, internal, store or invalid_argument. */
  error: {kind: string; message: string} | null;
  events: KeelEvent[];
  usage: Usage;
  rounds: number;
  sessionId: string;
}

export interface Checkpoint {
  conversation: ChatMessage[];
  run_start: number;
  calls_not_started?: boolean;
}

export interface RoundResult {
  events: KeelEvent[];
  checkpoint: Checkpoint;
  done: boolean;
  answer?: string;
  error?: {kind: string; message: string};
  approvals_needed?: ApprovalRequest[];
}

export class Agent {
  run(task: string, options?: {onEvent?: (event: KeelEvent) => void; signal?: AbortSignal; sessionId?: string}): Promise<RunResult>;
  runConversation(task: string, earlier: ChatMessage[], options?: {onEvent?: (event: KeelEvent) => void; signal?: AbortSignal}): Promise<RunResult>;
  /** One round per invocation, for hosts that keep nothing between calls. */
  runOneRound(body: {task: string} | {checkpoint: Checkpoint; approvals?: {call_id: string; verdict: 'allow' | 'allow_always' | 'deny'; reason?: string}[]},
    options?: {onEvent?: (event: KeelEvent) => void; signal?: AbortSignal}): Promise<RoundResult>;
}

/** Loads the core (once per page or process) and makes an agent; a bad option throws a KeelError. */
export function createAgent(options: AgentOptions): Promise<Agent>;
export function modelFrom(model: HttpModelOptions | ModelBackend): ModelBackend;
export function openaiModel(options: HttpModelOptions): ModelBackend;
export function anthropicModel(options: HttpModelOptions): ModelBackend;
export function openaiBody(request: ModelRequest, options: {name?: string; stream?: boolean}): object;
export function anthropicBody(request: ModelRequest, options: {name?: string; maxTokens?: number; stream?: boolean}): object;
export function readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<{event: string; data: string; id: string}>;
export function toolSpecOf(tool: Tool): object;
export const DEFAULT_RETRY: Readonly<Required<RetryOptions>>;

/** The core itself: one JSON call in, one JSON answer out (src/wasm/keel_wasm.cpp). */
export function loadCore(options?: {wasmBinary?: Uint8Array; wasmUrl?: string | URL}): Promise<KeelCore>;
export class KeelCore {
  call(request: object): any;
  version(): string;
  createMachine(spec: object): Machine;
}
export class Machine {
  start(): any;
  step(event: object): any;
  state(): any;
  guide(text: string): void;
  compact(): void;
  free(): void;
}
export class KeelError extends Error {
  kind: string;
}
export class ModelError extends Error {
  retryable: boolean;
  retryAfterMs: number | null;
  status: number;
}

/** Tools for a page: fetch_url (the browser's CORS rules), read_page, memory_save / memory_search
 * (IndexedDB), file_write / file_read / file_list (the origin-private file system), ask_user. */
export function builtinBrowserTools(options?: {
  store?: IndexedDbStore;
  dbName?: string;
  ask?: (question: string) => string | Promise<string>;
  document?: Document;
  fetch?: typeof fetch;
  maxFetchBytes?: number;
  maxPageChars?: number;
  maxFileBytes?: number;
  only?: string[];
}): Tool[];

/** Sessions and memory notes in IndexedDB; each append is one transaction (all or nothing). */
export interface IndexedDbStore extends SessionStore {
  name: string;
  /** Newest first. */
  listSessions(): Promise<{id: string; title: string; created: number; updated: number; count: number}[]>;
  deleteSession(sessionId: string): Promise<void>;
  /** Resolves to the new note's id. */
  saveNote(text: string, tags?: string[]): Promise<number>;
  /** Notes sharing words with the query (a tag match counts double), best then newest first. */
  searchNotes(query: string, options?: {limit?: number}): Promise<{id: number; text: string; tags: string[]; created: number; score: number}[]>;
  close(): void;
}
export function openIndexedDbStore(name?: string): Promise<IndexedDbStore>;

/** llama.cpp in the page through @wllama/wllama 3.x: the prompt rendered and tool rounds constrained
 * to valid calls by the core (use with config {tool_protocol: 'text'}). */
export interface WllamaModelOptions {
  wllama: unknown;
  template?: string;
  family?: 'chatml' | 'llama3' | 'mistral' | 'gemma';
  tools?: Array<Tool | {name: string; description?: string; parameters?: object}>;
  describeTools?: boolean;
  grammar?: boolean;
  toolChoice?: 'auto' | 'required';
  maxCallsPerReply?: number;
  maxStringChars?: number;
  nPredict?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  seed?: number;
  validUtf8?: boolean;
  stream?: boolean;
  core?: KeelCore;
  name?: string;
}
export function wllamaModel(options: WllamaModelOptions): ModelBackend;
