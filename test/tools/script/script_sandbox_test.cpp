// The script tool's sandbox: every way out and every limit, each refused or stopped with an error
// that says what happened.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "../data/data_tool_harness.hpp"

namespace keel {
namespace {

using testing::DataToolHarness;
using testing::has;

// A sandbox whose limits are small enough for tests to hit quickly.
DataToolOptions fast_limits() {
  DataToolOptions o;
  o.script.max_instructions = 200'000;
  o.script.timeout_ms = 60'000;  // generous: these tests hit other limits first
  return o;
}

void expect_error(const Status& s, ErrorCode code, std::string_view part) {
  EXPECT_EQ(s.code(), code) << s.to_string();
  EXPECT_TRUE(has(s.message(), part)) << "expected '" << part << "' in: " << s.message();
}

TEST(ScriptSandboxTest, NoIoOsPackageOrDebug) {
  DataToolHarness h;
  expect_error(h.script_error("return io.open('/etc/passwd'):read('a')"), ErrorCode::kInvalidArgument,
               "global 'io'");
  expect_error(h.script_error("return os.execute('touch /tmp/keel_pwned')"), ErrorCode::kInvalidArgument,
               "global 'os'");
  expect_error(h.script_error("return os.getenv('HOME')"), ErrorCode::kInvalidArgument, "global 'os'");
  expect_error(h.script_error("return require('io')"), ErrorCode::kInvalidArgument, "global 'require'");
  expect_error(h.script_error("return package.loadlib('libc.so.6', 'system')"), ErrorCode::kInvalidArgument,
               "global 'package'");
  expect_error(h.script_error("debug.sethook(print, '', 0)"), ErrorCode::kInvalidArgument, "global 'debug'");
  expect_error(h.script_error("return dofile('/etc/passwd')"), ErrorCode::kInvalidArgument, "global 'dofile'");
  expect_error(h.script_error("return loadfile('/etc/passwd')"), ErrorCode::kInvalidArgument, "global 'loadfile'");
  // Nothing dangerous is reachable under another name either.
  EXPECT_EQ(h.script("local found = {} for k in pairs(_G) do found[#found + 1] = k end table.sort(found) "
                     "return table.concat(found, ' ')"),
            "_G _VERSION assert collectgarbage coroutine error getmetatable ipairs load math next pairs "
            "pcall print rawequal rawget rawlen rawset select setmetatable string table tonumber tostring type "
            "utf8 xpcall");
}

TEST(ScriptSandboxTest, BytecodeIsRefused) {
  DataToolHarness h;
  EXPECT_EQ(h.script("return string.dump == nil and ('x').dump == nil"), true);
  // A literal binary chunk through load: refused by the text-only mode.
  const nlohmann::json r = h.script("local f, err = load(string.char(27) .. 'LuaT' .. string.rep('\\0', 40)) "
                                    "return {f == nil, err}");
  ASSERT_TRUE(r.is_array()) << r;
  EXPECT_EQ(r[0], true);
  EXPECT_TRUE(has(r[1].get<std::string>(), "binary chunk")) << r;
  // Asking for binary mode explicitly changes nothing.
  expect_error(h.script_error("assert(load(string.char(27) .. 'Lua', 'x', 'b'))"), ErrorCode::kInvalidArgument,
               "binary chunk");
  // The code argument itself as a binary chunk.
  expect_error(h.script_error(std::string("\x1bLuaT") + std::string(20, '\0')), ErrorCode::kInvalidArgument,
               "precompiled (binary) chunks are refused");
  // load of source text still works, with or without an environment.
  EXPECT_EQ(h.script("return load('return 1 + 1')()"), 2);
  EXPECT_EQ(h.script("return load('return x', 'chunk', 't', {x = 5})()"), 5);
  expect_error(h.script_error("return load(function() return nil end)"), ErrorCode::kInvalidArgument,
               "only a string");
}

TEST(ScriptSandboxTest, StringMetatableTricksReachNothing) {
  DataToolHarness h;
  EXPECT_EQ(h.script("return getmetatable('')"), false);
  expect_error(h.script_error("return getmetatable('').__index.dump"), ErrorCode::kInvalidArgument,
               "attempt to index a boolean value");
  expect_error(h.script_error("setmetatable('', {__index = {}})"), ErrorCode::kInvalidArgument, "table expected");
  // Changing the string table only changes this script's own state; dump stays gone.
  EXPECT_EQ(h.script("string.x = 1 return {rawget(string, 'dump') == nil, ('a').x}"), nlohmann::json({true, 1}));
  // Finalizers run with hooks off, so they are refused outright.
  expect_error(h.script_error("setmetatable({}, {__gc = function() while true do end end})"),
               ErrorCode::kInvalidArgument, "__gc metamethods are not available");
  // collectgarbage keeps only harmless options.
  expect_error(h.script_error("collectgarbage('stop')"), ErrorCode::kInvalidArgument, "invalid option 'stop'");
  EXPECT_TRUE(h.script("return collectgarbage('count')").is_number());
}

TEST(ScriptSandboxTest, MemoryBombsHitTheMemoryLimit) {
  DataToolHarness h;
  const std::string limit = "memory limit of 33554432 bytes (32 MiB)";
  expect_error(h.script_error("return string.rep('x', 1e9)"), ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("return ('x'):rep(1e9)"), ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("local s = 'x' while true do s = s .. s end"), ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("local t, i = {}, 0 while true do i = i + 1 t[i] = {i, i} end"),
               ErrorCode::kResourceExhausted, limit);
  // A refused allocation is an ordinary error the script may handle; the budget still holds.
  EXPECT_EQ(h.script("local ok, err = pcall(string.rep, 'x', 1e9) return {ok, err}"),
            nlohmann::json({false, "not enough memory"}));

  DataToolOptions small;
  small.script.max_memory_bytes = 1024 * 1024;
  DataToolHarness tight(small);
  expect_error(tight.script_error("return string.rep('x', 2 * 1024 * 1024)"), ErrorCode::kResourceExhausted,
               "memory limit of 1048576 bytes (1 MiB)");
  EXPECT_EQ(tight.script("return #string.rep('x', 100000)"), 100000);
}

TEST(ScriptSandboxTest, InfiniteLoopsHitTheInstructionLimit) {
  DataToolHarness h(fast_limits());
  const std::string limit = "instruction limit of 200000 instructions";
  expect_error(h.script_error("while true do end"), ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("local i = 0 repeat i = i + 1 until false"), ErrorCode::kResourceExhausted, limit);
  // pcall cannot swallow the limit: the error keeps coming.
  expect_error(h.script_error("while true do pcall(function() while true do end end) end"),
               ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("for i = 1, 5 do pcall(function() while true do end end) end return 'escaped'"),
               ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("xpcall(function() while true do end end, function() while true do end end)"),
               ErrorCode::kResourceExhausted, limit);
  // Code the libraries run after a limit error (message handlers, __close handlers of a failed
  // coroutine) would run with the hook off: it does not run.
  expect_error(h.script_error("xpcall(error, function() while true do end end)"), ErrorCode::kResourceExhausted,
               limit);
  const char* closing_loop = "setmetatable({}, {__close = function() while true do end end})";
  expect_error(h.script_error(std::string("local co = coroutine.create(function() local x <close> = ") +
                              closing_loop + " while true do end end) coroutine.resume(co) coroutine.close(co)"),
               ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error(std::string("coroutine.wrap(function() local x <close> = ") + closing_loop +
                              " while true do end end)()"),
               ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("local t = setmetatable({}, {__index = function() while true do end end}) return t.x"),
               ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("do local x <close> = setmetatable({}, {__close = function() while true do end end}) "
                              "end"),
               ErrorCode::kResourceExhausted, limit);
  // Work below the limit runs to completion.
  EXPECT_EQ(h.script("local s = 0 for i = 1, 1000 do s = s + i end return s"), 500500);
}

TEST(ScriptSandboxTest, CoroutinesAreHookedToo) {
  DataToolHarness h(fast_limits());
  const std::string limit = "instruction limit of 200000 instructions";
  expect_error(h.script_error("coroutine.wrap(function() while true do end end)()"), ErrorCode::kResourceExhausted,
               limit);
  expect_error(h.script_error("local co = coroutine.create(function() while true do end end) "
                              "coroutine.resume(co) return 'escaped'"),
               ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("local co = coroutine.wrap(function() while true do coroutine.yield() end end) "
                              "while true do co() end"),
               ErrorCode::kResourceExhausted, limit);
  EXPECT_EQ(h.script("local co = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end) "
                     "return co() + co() + co()"),
            6);
  // The rebuilt wrap behaves like the standard one: errors propagate, __close handlers run.
  EXPECT_EQ(h.script("local closed = false "
                     "local f = coroutine.wrap(function() local x <close> = setmetatable({}, {__close = function() "
                     "closed = true end}) error('boom') end) "
                     "local ok, err = pcall(f) return {ok, err, closed}"),
            nlohmann::json({false, "script:1: boom", true}));
  EXPECT_EQ(h.script("local ok, err = xpcall(error, function(m) return 'handled: ' .. m end, 'x') return {ok, err}"),
            nlohmann::json({false, "handled: x"}));
}

TEST(ScriptSandboxTest, WallClockLimitStopsLoopsOnItsOwn) {
  DataToolOptions o;
  o.script.max_instructions = 1'000'000'000'000;  // out of reach: only the clock can stop these
  o.script.timeout_ms = 200;
  DataToolHarness h(o);
  const auto start = std::chrono::steady_clock::now();
  expect_error(h.script_error("while true do end"), ErrorCode::kDeadlineExceeded, "time limit of 200 ms");
  expect_error(h.script_error("coroutine.wrap(function() while true do pcall(error) end end)()"),
               ErrorCode::kDeadlineExceeded, "time limit of 200 ms");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(ScriptSandboxTest, StopTokenCancels) {
  DataToolOptions o;
  o.script.max_instructions = 1'000'000'000'000;
  o.script.timeout_ms = 60'000;
  DataToolHarness h(o);
  std::stop_source before;
  before.request_stop();
  expect_error(h.script_error("while true do end", before.get_token()), ErrorCode::kCancelled, "cancelled");

  std::stop_source later;
  std::thread stopper([&later] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    later.request_stop();
  });
  expect_error(h.script_error("while true do end", later.get_token()), ErrorCode::kCancelled, "cancelled");
  stopper.join();
}

TEST(ScriptSandboxTest, DeepRecursionIsStopped) {
  DataToolHarness h;
  expect_error(h.script_error("local function f(n) return 1 + f(n + 1) end return f(1)"),
               ErrorCode::kResourceExhausted, "call depth limit of 1000 nested calls");
  // Recursion through metamethods nests C calls: Lua's own C-stack limit stops it.
  expect_error(h.script_error("local t = setmetatable({}, {__index = function(t, k) return t[k] end}) return t.x"),
               ErrorCode::kResourceExhausted, "stack overflow");
  // Legitimate recursion is fine.
  EXPECT_EQ(h.script("local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end "
                     "return fib(15)"),
            610);
  EXPECT_EQ(h.script("local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end "
                     "return depth(500)"),
            500);
}

TEST(ScriptSandboxTest, CodeSizeCapIsCheckedBeforeRunning) {
  DataToolHarness h;
  const std::string body = "return 1 --";
  const std::string at_cap = body + std::string(1000 - body.size(), 'x');
  EXPECT_EQ(h.script(at_cap), 1);
  expect_error(h.script_error(at_cap + "x"), ErrorCode::kInvalidArgument,
               "1001 characters long, over the limit of 1000 characters");
  // The cap counts characters, not bytes.
  std::string accents = "return 2 --";
  for (int i = 0; i < 900; ++i) accents += "\xC3\xA9";  // é: 2 bytes, 1 character
  EXPECT_EQ(h.script(accents), 2);
  // Nothing ran: a script over the cap cannot even print.
  Result<std::string> r = h.run("script", {{"code", "print('ran') --" + std::string(1000, 'x')}});
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(has(r.status().message(), "ran"));
}

TEST(ScriptSandboxTest, PatternsTooCostlyForTheirSubjectAreRefused) {
  DataToolHarness h;
  expect_error(h.script_error("return string.find(string.rep('a', 5000), string.rep('a*', 30) .. 'b')"),
               ErrorCode::kInvalidArgument, "string.find refused");
  expect_error(h.script_error("return (string.rep('a', 100000)):gsub('(a-)(a-)(a-)x', '')"),
               ErrorCode::kInvalidArgument, "pattern limit");
  // Plain search has its worst case too: a long needle against a repetitive haystack.
  expect_error(h.script_error("local s = string.rep('a', 4000000) return s:find(s:sub(1, 2000000) .. 'b', 1, true)"),
               ErrorCode::kInvalidArgument, "string.find refused");
  // Ordinary patterns on ordinary strings work, also on long strings.
  EXPECT_EQ(h.script("local n = 0 for w in string.gmatch('one two  three', '%a+') do n = n + 1 end return n"), 3);
  EXPECT_EQ(h.script("return (' padded  '):match('^%s*(.-)%s*$')"), "padded");
  EXPECT_EQ(h.script("local s = string.rep('ab,', 100000) local _, n = s:gsub(',', ';') return n"), 100000);
  EXPECT_TRUE(h.script("return string.find(string.rep('a', 5000), 'a*b*', 1, true)").is_null());
}

TEST(ScriptSandboxTest, LoopsInsideLibraryFunctionsAreCharged) {
  DataToolHarness h(fast_limits());
  const std::string limit = "instruction limit of 200000 instructions";
  expect_error(h.script_error("return table.concat(setmetatable({}, {__index = table.concat}), '', 1, 1e15)"),
               ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("table.move('x', 1, 1e15, 1, {})"), ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("table.insert(setmetatable({}, {__len = function() return 1e15 end}), 1, 'x')"),
               ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("table.remove(setmetatable({}, {__len = function() return 1e15 end}), 1)"),
               ErrorCode::kResourceExhausted, limit);
  expect_error(h.script_error("table.sort(setmetatable({}, {__len = function() return 2^31 - 2 end, "
                              "__index = rawlen}))"),
               ErrorCode::kResourceExhausted, limit);
  EXPECT_EQ(h.script("return #string.rep('', 1e18) + #string.rep('', 1e18, '')"), 0);
  EXPECT_EQ(h.script("local t = {3, 1, 2} table.sort(t) table.insert(t, 4) table.remove(t, 1) "
                     "return table.concat(t, ',')"),
            "2,3,4");
}

TEST(ScriptSandboxTest, ScriptErrorsAreReportedWithTheirLine) {
  DataToolHarness h;
  expect_error(h.script_error("local x = 1\nreturn x.y.z"), ErrorCode::kInvalidArgument, "script error: script:2:");
  expect_error(h.script_error("return 1 +"), ErrorCode::kInvalidArgument, "script does not compile: script:1:");
  expect_error(h.script_error("error('custom failure')"), ErrorCode::kInvalidArgument, "custom failure");
  expect_error(h.script_error("error(setmetatable({}, {__tostring = function() while true do end end}))"),
               ErrorCode::kInvalidArgument, "an error value of type table");
}

}  // namespace
}  // namespace keel
