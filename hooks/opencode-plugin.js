// reasongraph memory for OpenCode, which has no shell hooks: this plugin runs the same two
// hook scripts as Claude Code and Codex (hooks/prepare.py, hooks/capture.py), feeding them
// Claude-shaped JSON on stdin.
//
// - "experimental.chat.system.transform": before the model sees a turn, run prepare.py on the
//   latest user message and push the recalled block (if any) onto output.system.
// - event "session.idle": the turn is over; run capture.py with that user message and the
//   last assistant message. capture.py prints nothing and exits 0.
//
// Install: copy (or link) this file into .opencode/plugins/ or ~/.config/opencode/plugins/.
// The installer writes REASONGRAPH_PYTHON and REASONGRAPH_HOOKS below (or set them in the
// environment). Failures are silent: memory must never break the chat.

import { spawn } from "node:child_process"
import path from "node:path"
import { fileURLToPath } from "node:url"

const HERE = path.dirname(fileURLToPath(import.meta.url))
const PYTHON = process.env.REASONGRAPH_PYTHON || "python3"
const HOOKS = process.env.REASONGRAPH_HOOKS || HERE
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
      child = spawn(PYTHON, ["-S", path.join(HOOKS, script)], {
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

export const ReasongraphMemory = async ({ client, directory }) => {
  const injected = new Map() // sessionID -> the user message already given context

  return {
    "experimental.chat.system.transform": async (input, output) => {
      const sessionID = input?.sessionID || input?.session?.id
      if (!sessionID) return
      const prompt = last(await messagesOf(client, sessionID), "user")
      if (!prompt || injected.get(sessionID) === prompt) return
      injected.set(sessionID, prompt)
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
      try {
        const ctx = JSON.parse(stdout).hookSpecificOutput.additionalContext
        if (ctx) output.system.push(ctx)
      } catch {
        // no output: nothing relevant recalled
      }
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
