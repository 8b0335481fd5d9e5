// The sanitizer and the Markdown renderer in a real browser: XSS payloads must come out inert.
// Each payload is rendered (web/markdown.js, web/sanitize.js) into the live page and checked
// three ways: the exact resulting HTML; a sweep of the whole output (only allowed elements, no on*
// or style attributes, hrefs only relative/http/https/mailto, every link with rel and target);
// and that nothing ran: no dialog opened and window.__pwned stayed unset. Tool output, approval
// arguments, question text and the operator console's server text must show as text.
// The page has NO Content-Security-Policy on purpose: a CSP would stop inline handlers by itself
// and hide a sanitizer bug.
//
// Usage: node test/web/sanitizer_test.mjs   (see run.sh)
import {Checks, launchBrowser, screenshot, startStaticServer, watchdog, withTimeout} from './support.mjs';

const LINK = 'rel="noopener noreferrer" target="_blank"';
const P = 'window.__pwned=1';

// [name, 'html' | 'md', input, exact expected innerHTML]
const CASES = [
  ['script element', 'html', `<p>hi<script>${P}</script></p>`, '<p>hi</p>'],
  ['script in markdown', 'md', `hello <script>${P}</script> world`, '<p>hello  world</p>'],
  ['script block in markdown', 'md', `<script>\n${P}\n</script>\nafter`, '<p><br>after</p>'],
  ['img onerror', 'html', `<img src=x onerror="${P}">text`, 'text'],
  ['img onerror in markdown', 'md', `look <img src=x onerror=${P}> here`, '<p>look  here</p>'],
  ['javascript: link', 'html', `<a href="javascript:${P}">x</a>`, `<a ${LINK}>x</a>`],
  ['JAVASCRIPT: link', 'html', `<a href="JAVASCRIPT:${P}">x</a>`, `<a ${LINK}>x</a>`],
  ['java&#x09;script: link', 'html', `<a href="java&#x09;script:${P}">x</a>`, `<a ${LINK}>x</a>`],
  ['java&#x0A;script: link', 'html', `<a href="java&#x0A;script:${P}">x</a>`, `<a ${LINK}>x</a>`],
  ['leading blanks and controls', 'html', `<a href=" &#x01; javascript:${P}">x</a>`, `<a ${LINK}>x</a>`],
  ['entity-encoded scheme', 'html', `<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;${P}">x</a>`, `<a ${LINK}>x</a>`],
  ['&colon; scheme', 'html', `<a href="javascript&colon;${P}">x</a>`, `<a ${LINK}>x</a>`],
  ['vbscript: link', 'html', '<a href="vbscript:msgbox(1)">x</a>', `<a ${LINK}>x</a>`],
  ['data: link', 'html', `<a href="data:text/html,<script>${P}</script>">x</a>`, `<a ${LINK}>x</a>`],
  ['data: link in markdown', 'md', '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)', `<p><a ${LINK}>x</a></p>`],
  ['markdown javascript link', 'md', '[x](javascript:alert(1))', `<p><a ${LINK}>x</a></p>`],
  ['markdown javascript link, entity', 'md', '[x](&#106;avascript:alert(1))', `<p><a ${LINK}>x</a></p>`],
  ['markdown java&#x09;script link', 'md', '[x](java&#x09;script:alert(1)) [y](<JAVASCRIPT:alert(1)>)', `<p><a ${LINK}>x</a> <a ${LINK}>y</a></p>`],
  ['markdown autolink javascript', 'md', '<javascript:alert(1)>', '<p>&lt;javascript:alert(1)&gt;</p>'],
  ['svg onload', 'html', `<svg onload="${P}"><circle r="1"></circle></svg>after`, 'after'],
  ['svg script', 'html', `<svg><script>${P}</script></svg>x`, 'x'],
  ['svg a xlink:href', 'html', '<svg><a xlink:href="javascript:alert(1)"><text>t</text></a></svg>', ''],
  ['math', 'html', `<math><mi xlink:href="javascript:${P}">m</mi></math>y`, 'y'],
  ['math mXSS', 'html', `<math><mtext><table><mglyph><style><img src=x onerror=${P}>`, ''],
  ['noscript mXSS', 'html', `<noscript><p title="</noscript><img src=x onerror=${P}>">`, '<p></p>'],
  ['iframe src', 'html', `<iframe src="javascript:${P}"></iframe>z`, 'z'],
  ['iframe srcdoc', 'html', `<iframe srcdoc="<script>parent.${P}</script>"></iframe>z`, 'z'],
  ['object and embed', 'html', `<object data="javascript:${P}"></object><embed src="javascript:${P}">w`, 'w'],
  ['style element', 'html', '<style>body{display:none}</style><p>x</p>', '<p>x</p>'],
  ['style attribute', 'html', '<p style="background:url(javascript:alert(1))">x</p>', '<p>x</p>'],
  ['on* and style on a link', 'html', `<a href="https://ok.test/" onclick="${P}" style="color:red" id="i">ok</a>`,
    `<a href="https://ok.test/" ${LINK}>ok</a>`],
  ['href with entities', 'html', '<a href="https://ok.test/?a=1&amp;b=2">q</a>', `<a href="https://ok.test/?a=1&amp;b=2" ${LINK}>q</a>`],
  ['href on a non-link', 'html', '<p href="https://ok.test/">p</p><code href="x">c</code>', '<p>p</p><code>c</code>'],
  ['details ontoggle', 'html', `<details open ontoggle="${P}"><summary>s</summary>x</details>`, 'sx'],
  ['form and button', 'html', `<form action="javascript:${P}"><button formaction="javascript:${P}">b</button>t</form>`, 't'],
  ['base and meta', 'html', `<base href="javascript:/"><meta http-equiv="refresh" content="0;url=javascript:${P}">m`, 'm'],
  ['template', 'html', `<template><img src=x onerror=${P}></template>t`, 't'],
  ['unclosed tags', 'html', `<p><a href="https://ok.test/"><b><i>bold<script>${P}</script>`,
    `<p><a href="https://ok.test/" ${LINK}>bold</a></p>`],
  ['nested links', 'html', '<a href="https://a.test/">a<a href="javascript:alert(1)">b</a></a>',
    `<a href="https://a.test/" ${LINK}>a</a><a ${LINK}>b</a>`],
  ['comment', 'html', `<!-- <img src=x onerror=${P}> -->c`, 'c'],
  ['attributes on allowed tags', 'html', '<h1 id="x" class="y" title="t">T</h1><ol start="3" type="a"><li>i</li></ol>',
    '<h1>T</h1><ol start="3"><li>i</li></ol>'],
  ['code class', 'html', '<code class="language-js">a</code><code class="x onload">b</code>',
    '<code class="language-js">a</code><code>b</code>'],
  ['markdown code keeps text', 'md', '```js\n<script>alert(1)</script>\n```', '<pre><code class="language-js">&lt;script&gt;alert(1)&lt;/script&gt;</code></pre>'],
  ['markdown inline code', 'md', '`<img src=x onerror=alert(1)>`', '<p><code>&lt;img src=x onerror=alert(1)&gt;</code></p>'],
  ['markdown safe links', 'md', '[a](https://ok.test/x?y=1&z=2 "T") [r](/rel/path) [m](mailto:me@ok.test)',
    `<p><a href="https://ok.test/x?y=1&amp;z=2" title="T" ${LINK}>a</a> <a href="/rel/path" ${LINK}>r</a> <a href="mailto:me@ok.test" ${LINK}>m</a></p>`],
  ['markdown image is a link', 'md', '![alt](javascript:alert(1)) ![ok](https://ok.test/i.png)',
    `<p><a ${LINK}>alt</a> <a href="https://ok.test/i.png" ${LINK}>ok</a></p>`],
  ['markdown link title breakout', 'md', '[x](https://ok.test/ "a\\" onmouseover=alert(1) \\"")', `<p>[x](<a href="https://ok.test/" ${LINK}>https://ok.test/</a> "a" onmouseover=alert(1) "")</p>`],
  ['bare URL', 'md', 'see https://ok.test/a_b?c=1. and javascript:alert(1)',
    `<p>see <a href="https://ok.test/a_b?c=1" ${LINK}>https://ok.test/a_b?c=1</a>. and javascript:alert(1)</p>`],
  ['markdown features', 'md', '# T\n\n**b** *i* ~~d~~\n\n- one\n- two\n\n1. x\n2. y\n\n> q\n\n---\n\n| a | b |\n|:--|--:|\n| 1 | 2 |',
    '<h1>T</h1><p><strong>b</strong> <em>i</em> <del>d</del></p><ul><li>one</li><li>two</li></ul><ol><li>x</li><li>y</li></ol>' +
    '<blockquote><p>q</p></blockquote><hr><table><thead><tr><th align="left">a</th><th align="right">b</th></tr></thead>' +
    '<tbody><tr><td align="left">1</td><td align="right">2</td></tr></tbody></table>'],
  ['unknown tags unwrap', 'html', '<div><span>a</span><marquee onstart="alert(1)">b</marquee></div>', 'ab'],
];

const ALLOWED = ['P', 'BR', 'STRONG', 'EM', 'CODE', 'PRE', 'UL', 'OL', 'LI', 'BLOCKQUOTE', 'A', 'H1', 'H2', 'H3',
  'H4', 'H5', 'H6', 'TABLE', 'THEAD', 'TBODY', 'TFOOT', 'TR', 'TH', 'TD', 'CAPTION', 'HR', 'DEL'];

async function main() {
  const t = new Checks('web sanitizer');
  const server = await startStaticServer({pages: {'/blank': '<!doctype html><html><head><title>t</title></head><body><main id="out"></main></body></html>'}});
  const browser = await launchBrowser();
  watchdog(55000, async () => { await browser.close(); await server.close(); });
  try {
    const page = await browser.newPage();
    const dialogs = [];
    page.on('dialog', (dialog) => { dialogs.push(dialog.message()); dialog.dismiss().catch(() => {}); });
    const pageErrors = [];
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto(`${server.url}/blank`);

    const results = await withTimeout(page.evaluate(async (cases) => {
      const {renderMarkdown} = await import('/ui/markdown.js');
      const {sanitizeHtml} = await import('/ui/sanitize.js');
      const out = document.getElementById('out');
      const rendered = [];
      for (const [name, kind, input] of cases) {
        const box = document.createElement('section');
        box.dataset.case = name;
        box.append(kind === 'md' ? renderMarkdown(input) : sanitizeHtml(input));
        out.append(box);
        rendered.push(box.innerHTML);
      }
      // Deep nesting: bounded, and the text survives.
      const deep = document.createElement('section');
      deep.append(sanitizeHtml('<em>'.repeat(300) + 'deep' + '</em>'.repeat(300)));
      out.append(deep);
      rendered.push(deep.textContent);
      return rendered;
    }, CASES), 15000, 'rendering the payloads');

    CASES.forEach(([name], i) => t.equal(results[i], CASES[i][3], `case "${name}"`));
    t.equal(results[CASES.length], 'deep', 'deeply nested markup keeps its text');

    // Let any handler that survived fire (image errors, load events, timers).
    await page.waitForTimeout(500);
    const sweep = await page.evaluate((allowed) => {
      const problems = [];
      for (const node of document.querySelectorAll('#out *')) {
        if (node.parentElement && node.parentElement.id === 'out' && node.tagName === 'SECTION') continue;
        if (!allowed.includes(node.tagName)) problems.push(`element ${node.tagName}`);
        for (const attr of node.attributes) {
          if (/^on/i.test(attr.name)) problems.push(`${node.tagName} has ${attr.name}`);
          if (attr.name === 'style') problems.push(`${node.tagName} has style`);
          if (attr.name === 'href' && node.tagName !== 'A') problems.push(`${node.tagName} has href`);
        }
        if (node.tagName === 'A') {
          const href = node.getAttribute('href');
          if (href !== null && !(/^(https?:|mailto:|\/)/i.test(href))) problems.push(`unsafe href ${href}`);
          if (node.getAttribute('rel') !== 'noopener noreferrer') problems.push('a without rel');
          if (node.getAttribute('target') !== '_blank') problems.push('a without target');
        }
      }
      return {problems, pwned: window.__pwned === undefined ? null : String(window.__pwned)};
    }, ALLOWED);
    t.equal(sweep.problems, [], 'the rendered output holds only allowed elements and attributes');
    t.equal(sweep.pwned, null, 'no payload set window.__pwned');

    // Tool output, approval arguments and question text are text, never markup.
    const textViews = await page.evaluate(async (payload) => {
      const {ToolCards} = await import('/ui/tool_cards.js');
      const {Approvals} = await import('/ui/approvals.js');
      const {Questions} = await import('/ui/questions.js');
      const slot = document.createElement('section');
      document.getElementById('out').append(slot);
      const cards = new ToolCards();
      cards.start(slot, {id: 'c1', name: '<b>shell</b>', arguments: {command: payload}, round: 1});
      const card = cards.finish({id: 'c1', status: 'ok', content: payload, duration_ms: 3});
      const approvals = new Approvals({}, () => {});
      const approval = approvals.request(slot, {approval_id: 'a1', call: {id: 'c2', name: payload, arguments: {x: payload}}, risk: 'high', reason: payload});
      const questions = new Questions({}, () => {});
      const question = questions.ask(slot, {question_id: 'q1', question: payload, options: [payload], allow_free_text: true});
      const html = (node) => Array.from(node.querySelectorAll('img, script, b')).length;
      return {
        result: card.querySelector('[data-testid=tool-result]').textContent,
        resultElements: card.querySelector('[data-testid=tool-result]').children.length,
        name: card.querySelector('[data-testid=tool-name]').textContent,
        args: card.querySelector('[data-testid=tool-args]').textContent,
        markup: html(card) + html(approval) + html(question),
        question: question.querySelector('[data-testid=question-text]').textContent,
        option: question.querySelector('[data-testid=question-option]').textContent,
        reason: approval.querySelector('.approval-reason').textContent,
      };
    }, `<img src=x onerror="${P}"><script>${P}</script>`);
    const payload = `<img src=x onerror="${P}"><script>${P}</script>`;
    t.equal(textViews.result, payload, 'a tool result shows its HTML as text');
    t.equal(textViews.resultElements, 0, 'a tool result creates no elements');
    t.equal(textViews.name, '<b>shell</b>', 'a tool name is text');
    t.equal(textViews.args, JSON.stringify({command: payload}, null, 2), 'tool arguments are pretty-printed JSON text');
    t.equal(textViews.markup, 0, 'no element came from a payload in a tool card, approval or question');
    t.equal(textViews.question, payload, 'a question is text');
    t.equal(textViews.option, payload, 'an option is text');
    t.equal(textViews.reason, payload, 'an approval reason is text');

    // The operator console shows proposals, their outcomes and the autopilot's text as text.
    const operator = await page.evaluate(async (payload) => {
      const {OperatorConsole} = await import('/ui/operator_console.js');
      const panel = document.createElement('section');
      document.getElementById('out').append(panel);
      const id = `sp_${'0'.repeat(31)}1`;
      const api = {
        skills: async () => ({proposals: [{id, skill: payload, tool: payload, summary: payload, arguments: {x: payload}, status: 'pending'}]}),
        autopilot: async () => ({enabled: true, counts: {[payload]: 1},
          status: {running: true, cycles: 1, guard: payload, sources: [{name: payload, kind: payload, ok: false, error: payload}]},
          observations: [{id: 1, source: payload, kind: payload, subject: payload, state: payload, last_error: payload, result: payload}]}),
        decideProposal: async () => ({id, status: payload, result: payload}),
      };
      const console = new OperatorConsole({panel, toggle: null}, api);
      await console.refresh();
      const before = {
        summary: panel.querySelector('[data-testid=proposal-summary]').textContent,
        subject: panel.querySelector('[data-testid=observation-subject]').textContent,
        error: panel.querySelector('[data-testid=observation-error]').textContent,
        guard: panel.querySelector('[data-testid=autopilot-guard]').textContent,
        source: panel.querySelector('[data-testid=autopilot-source-error]').textContent,
      };
      await console.decide({id, skill: payload, summary: payload}, 'approve');
      const result = panel.querySelector('[data-testid=proposal-outcome-result]').textContent;
      const markup = panel.querySelectorAll('img, script, b').length;
      panel.remove();
      return {...before, result, markup};
    }, payload);
    t.equal(operator, {summary: payload, subject: payload, error: payload, guard: `Budget guard: ${payload}`, source: payload,
      result: payload, markup: 0}, 'the operator console shows proposals, outcomes and autopilot text as text');

    await page.waitForTimeout(300);
    t.equal(await page.evaluate(() => (window.__pwned === undefined ? null : String(window.__pwned))), null,
      'window.__pwned is still unset at the end');
    t.equal(dialogs, [], 'no dialog was opened');
    t.equal(pageErrors, [], 'the page threw nothing');
    await screenshot(page, 'sanitizer');
  } catch (error) {
    t.ok(false, `unexpected error: ${error.stack || error}`);
  } finally {
    await browser.close();
    await server.close();
  }
  return t.finish();
}

process.exit(await main());
