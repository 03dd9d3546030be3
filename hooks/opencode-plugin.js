// reasongraph memory for OpenCode, which has no shell hooks: this plugin runs the same two
// hook scripts as Claude Code and Codex (hooks/prepare.py, hooks/capture.py), feeding them
// Claude-shaped JSON on stdin.
//
// - "experimental.chat.messages.transform": OpenCode calls it once per step of the agent's
//   own loop (never for the title, summary or compaction requests), just before it builds
//   that step's request. It arms the session with the latest user message.
// - "experimental.chat.system.transform": called for EVERY model request, the title
//   generator's included. Only an armed session gets the recalled block, pushed onto
//   output.system once per request; a hidden agent's request (title, summary, compaction:
//   recognised by its prompt, from OpenCode's own agent list) never does. prepare.py runs
//   once per user message; later steps of the same turn (after a tool call the system
//   prompt is rebuilt) get the same block again.
// - event "session.idle": the turn is over; run capture.py with that user message and the
//   last assistant message. capture.py prints nothing and exits 0.
//
// Install: copy (or link) this file into .opencode/plugins/ or ~/.config/opencode/plugins/.
// The installer writes REASONGRAPH_PYTHON and REASONGRAPH_HOOKS_DIR below (or set them in
// the environment). Failures are silent: memory must never break the chat.

import { spawn } from "node:child_process"
import path from "node:path"
import { fileURLToPath } from "node:url"

const HERE = path.dirname(fileURLToPath(import.meta.url))
const PYTHON = process.env.REASONGRAPH_PYTHON || "python3"
const HOOKS_DIR = process.env.REASONGRAPH_HOOKS_DIR || HERE
const TIMEOUT_MS = 5000

function runHook(script, payload, cwd) {
  return new Promise((resolve) => {
    let out = ""
    let done = false
    const finish = (value) => {
      if (!done) {
        done = true
        resolve(value)
      }
    }
    let child
    try {
      // -S: the hooks use only the standard library; skipping site-packages saves ~30 ms.
      child = spawn(PYTHON, ["-S", path.join(HOOKS_DIR, script)], {
        cwd,
        env: { ...process.env, REASONGRAPH_HARNESS: "opencode" },
        stdio: ["pipe", "pipe", "ignore"],
      })
    } catch {
      return finish("")
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      finish("")
    }, TIMEOUT_MS)
    child.stdout.on("data", (chunk) => (out += chunk))
    child.on("error", () => finish(""))
    child.on("close", () => {
      clearTimeout(timer)
      finish(out)
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

function textOf(parts) {
  return (parts || [])
    .filter((p) => p && p.type === "text" && typeof p.text === "string" && !p.synthetic)
    .map((p) => p.text)
    .join("\n")
}

async function messagesOf(client, sessionID) {
  try {
    const res = await client.session.messages({ path: { id: sessionID } })
    return res?.data || res || []
  } catch {
    return []
  }
}

function last(messages, role) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m?.info?.role === role) {
      const text = textOf(m.parts)
      if (text.trim()) return text
    }
  }
  return ""
}

// The prompts of OpenCode's hidden agents (title, summary, compaction), from its own agent
// list: a request whose system prompt starts with one of them is not the agent's turn.
async function hiddenPrompts(client) {
  try {
    const res = await client.app.agents()
    const agents = res?.data || res || []
    return agents.filter((a) => a?.hidden && typeof a.prompt === "string" && a.prompt.trim())
      .map((a) => a.prompt.trim())
  } catch {
    return []
  }
}

export const ReasongraphMemory = async ({ client, directory }) => {
  const armed = new Map() // sessionID -> the latest user message, set once per agent step
  const blocks = new Map() // sessionID -> { prompt, block }: prepare.py once per user message
  let hidden = null

  async function blockFor(sessionID, prompt) {
    const known = blocks.get(sessionID)
    if (known && known.prompt === prompt) return known.block
    const stdout = await runHook(
      "prepare.py",
      {
        session_id: sessionID,
        cwd: directory,
        hook_event_name: "UserPromptSubmit",
        prompt,
        transcript_path: null,
      },
      directory,
    )
    let block = ""
    try {
      block = JSON.parse(stdout).hookSpecificOutput.additionalContext || ""
    } catch {
      // no output: nothing relevant recalled
    }
    blocks.set(sessionID, { prompt, block })
    return block
  }

  return {
    "experimental.chat.messages.transform": async (_input, output) => {
      const messages = output?.messages || []
      const sessionID = messages.at(-1)?.info?.sessionID
      const prompt = last(messages, "user")
      if (sessionID && prompt) armed.set(sessionID, prompt)
    },

    "experimental.chat.system.transform": async (input, output) => {
      const sessionID = input?.sessionID || input?.session?.id
      const prompt = sessionID && armed.get(sessionID)
      if (!prompt || !Array.isArray(output?.system)) return
      const head = String(output.system[0] || "").trimStart()
      hidden ??= hiddenPrompts(client)
      if ((await hidden).some((p) => head.startsWith(p))) return
      armed.delete(sessionID) // once per request: the next step arms it again
      const block = await blockFor(sessionID, prompt)
      if (block && !output.system.includes(block)) output.system.push(block)
    },

    event: async ({ event }) => {
      if (event?.type !== "session.idle") return
      const sessionID = event.properties?.sessionID
      if (!sessionID) return
      const messages = await messagesOf(client, sessionID)
      const reply = last(messages, "assistant")
      if (!reply) return
      await runHook(
        "capture.py",
        {
          session_id: sessionID,
          cwd: directory,
          hook_event_name: "Stop",
          prompt: last(messages, "user"),
          last_assistant_message: reply,
          stop_hook_active: false,
        },
        directory,
      )
    },
  }
}

export default ReasongraphMemory
