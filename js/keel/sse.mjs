// Server-Sent Events from a fetch Response body (a ReadableStream of bytes): yields
// {event, data, id} per message, as the HTML standard's parser splits them (LF, CRLF or CR line
// ends, comments ignored, multi-line data joined with "\n").
export async function* readSse(body, signal) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data = [];
  let id = '';
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new DOMException('aborted', 'AbortError');
      const {value, done} = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, {stream: true});
      let start = 0;
      for (;;) {
        const nl = buffer.slice(start).search(/\r\n|\r|\n/);
        if (nl < 0) break;
        const lineEnd = start + nl;
        // A lone CR at the very end may be the first half of CRLF: wait for more.
        if (buffer[lineEnd] === '\r' && lineEnd + 1 === buffer.length && !done) break;
        const line = buffer.slice(start, lineEnd);
        start = lineEnd + (buffer.startsWith('\r\n', lineEnd) ? 2 : 1);
        if (line === '') {
          if (data.length) yield {event: event || 'message', data: data.join('\n'), id};
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value2 = colon < 0 ? '' : line.slice(colon + 1);
        if (value2.startsWith(' ')) value2 = value2.slice(1);
        if (field === 'data') data.push(value2);
        else if (field === 'event') event = value2;
        else if (field === 'id') id = value2;
      }
      buffer = buffer.slice(start);
      if (done) {
        if (data.length) yield {event: event || 'message', data: data.join('\n'), id};
        return;
      }
    }
  } finally {
    reader.releaseLock?.();
  }
}
