#!/usr/bin/env bash
# Runs test/api/responses_client_test.mjs (the official openai client's responses API, the OpenAI
# Agents SDK and the Vercel AI SDK's openai provider, all against keel's /v1/responses) through the
# shared runner, on keel_openai_test_server:
#   responses_client_test.sh SERVER_BINARY
# Exit 77 (skipped) when build/npm lacks node or the packages, unless KEEL_REQUIRE_NPM is set.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/openai_client_test.sh" "${1:?usage: responses_client_test.sh SERVER_BINARY}" "$here/responses_client_test.mjs"
