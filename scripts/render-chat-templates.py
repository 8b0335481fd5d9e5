#!/usr/bin/env python3
"""Renders every chat template of a llama.cpp release with Python's jinja2, configured the way
Hugging Face transformers' apply_chat_template configures it, and writes the expected prompts keel's
template engine is tested against (test/llm/chat_templates/expected/NAME.json).

Usage: scripts/render-chat-templates.py TEMPLATES_DIR RELEASE [OUT_DIR]
  TEMPLATES_DIR  llama.cpp's models/templates (build/llama/templates after configure)
  RELEASE        the llama.cpp commit they come from (build/llama/SOURCE), recorded in each file

The environment matches transformers' chat_template_utils: ImmutableSandboxedEnvironment with
trim_blocks and lstrip_blocks, the loopcontrols extension, a {% generation %} block that renders
its body, tojson as json.dumps (ensure_ascii False, no HTML escaping), raise_exception and
strftime_now. strftime_now is pinned to FIXED_NOW so the prompts are reproducible; keel's tests pin
the same time. Needs jinja2 (python3-jinja2).
"""
import datetime
import json
import os
import sys

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment

FIXED_NOW = datetime.datetime(2026, 1, 15, 9, 30, 0)
BOS, EOS = "<|bos|>", "<|eos|>"


class GenerationBlock(Extension):
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return FIXED_NOW.strftime(fmt)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationBlock, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def render_all(template_text, conversations, tools):
    env = environment()
    out = []
    try:
        compiled = env.from_string(template_text)
    except jinja2.exceptions.TemplateSyntaxError as e:
        return [{"conversation": c["id"], "error": f"syntax error line {e.lineno}: {e.message}"} for c in conversations]
    for c in conversations:
        kwargs = {"messages": c["messages"], "bos_token": BOS, "eos_token": EOS,
                  "add_generation_prompt": c.get("add_generation_prompt", True)}
        if c.get("tools"):
            kwargs["tools"] = tools
        if "enable_thinking" in c:
            kwargs["enable_thinking"] = c["enable_thinking"]
        try:
            out.append({"conversation": c["id"], "prompt": compiled.render(**kwargs)})
        except Exception as e:  # raise_exception, undefined attributes, type errors
            out.append({"conversation": c["id"], "error": f"{type(e).__name__}: {e}"})
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    templates, release = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    base = os.path.join(root, "test", "llm", "chat_templates")
    out_dir = sys.argv[3] if len(sys.argv) > 3 else os.path.join(base, "expected")
    with open(os.path.join(base, "conversations.json"), encoding="utf-8") as f:
        spec = json.load(f)
    os.makedirs(out_dir, exist_ok=True)
    names = sorted(n for n in os.listdir(templates) if n.endswith(".jinja"))
    for name in names:
        with open(os.path.join(templates, name), encoding="utf-8") as f:
            text = f.read()
        doc = {"template": name, "release": release, "jinja2": jinja2.__version__,
               "bos_token": BOS, "eos_token": EOS, "now": FIXED_NOW.isoformat(),
               "renders": render_all(text, spec["conversations"], spec["tools"])}
        with open(os.path.join(out_dir, name[:-len(".jinja")] + ".json"), "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False, indent=1)
            f.write("\n")
    print(f"{len(names)} templates rendered into {out_dir}")


if __name__ == "__main__":
    main()
