#!/usr/bin/env python3
"""Speaks DAP to lldb-dap over stdio, as an editor does, and prints every thread's call stack
as the editor gets it: one JSON document {"threads": [{"id", "name", "frames": [{"name",
"file", "line"}]}]} (innermost frame first; "file" is the source's path, null without one).

    lldb_dap_stacks.py LLDB_DAP INSTALL_DIR (--core CORE | --pid PID) [--evaluate COMMAND]

Requests: initialize; attach (to the core or the live process) with pyunwind loaded through
initCommands (`plugin load` alone: in LLDB 22 it imports the frame provider); configurationDone
(lldb-dap answers attach only after it); threads; stackTrace of each thread; disconnect
without ending the process. With --evaluate, COMMAND is also typed in the debug console (an
`evaluate` request in the "repl" context, escaped as an LLDB command) and the document gets
"evaluate": {"result": the response's text, "output": what came as output events meanwhile}.
Any error response, or no answer within the timeout, is one line
on stderr and exit status 1.
(//tests/e2e:lldb_dap_test runs it.)
"""
import json
import os
import select
import sys
import subprocess
import time

TIMEOUT_S = 45  # for the whole conversation (the e2e test kills this tool after 60 s)
MAX_FRAMES = 1000  # levels asked per thread


class Dap:
    def __init__(self, argv):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.seq = 0
        self.buffer = b""
        self.deadline = time.monotonic() + TIMEOUT_S

    def send(self, command, arguments=None):
        self.seq += 1
        message = {"seq": self.seq, "type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return self.seq

    def _read_until(self, have_enough):
        fd = self.process.stdout.fileno()
        while not have_enough():
            left = self.deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("lldb-dap did not answer within %d s" % TIMEOUT_S)
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError("lldb-dap closed its output")
            self.buffer += chunk

    def receive(self):
        self._read_until(lambda: b"\r\n\r\n" in self.buffer)
        header, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        length = next(int(line.split(b":")[1]) for line in header.split(b"\r\n")
                      if line.lower().startswith(b"content-length"))
        self._read_until(lambda: len(self.buffer) >= length)
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return json.loads(body)

    def responses(self, seqs, output=None):
        """The responses to the requests `seqs`, by seq; an error response raises. `output`, a
        list, gets the text of the output events that come meanwhile."""
        got = {}
        while len(got) < len(seqs):
            message = self.receive()
            if output is not None and message.get("type") == "event" \
                    and message.get("event") == "output":
                output.append((message.get("body") or {}).get("output", ""))
            if message.get("type") == "response" and message.get("request_seq") in seqs:
                if not message.get("success"):
                    raise RuntimeError("%s failed: %s %s" % (message.get("command"),
                                                         message.get("message"),
                                                         json.dumps(message.get("body"))))
                got[message["request_seq"]] = message
        return got

    def request(self, command, arguments=None):
        seq = self.send(command, arguments)
        return self.responses({seq})[seq].get("body") or {}

    def request_collecting_output(self, command, arguments):
        """The body of the response to `command`, and the text of the output events that came
        before it."""
        seq = self.send(command, arguments)
        output = []
        body = self.responses({seq}, output)[seq].get("body") or {}
        return body, "".join(output)

    def wait_event(self, event):
        while True:
            message = self.receive()
            if message.get("type") == "event" and message.get("event") == event:
                return message


def stacks(dap, install_dir, target, evaluate=None):
    dap.request("initialize", {"adapterID": "lldb-dap", "clientID": "pyunwind-test",
                               "linesStartAt1": True, "columnsStartAt1": True})
    attach = dict(target, initCommands=["plugin load %s/libpyunwind_lldb.so" % install_dir])
    attach_seq = dap.send("attach", attach)
    dap.wait_event("initialized")
    dap.responses({attach_seq, dap.send("configurationDone")})
    threads = []
    for thread in dap.request("threads").get("threads", []):
        trace = dap.request("stackTrace", {"threadId": thread["id"], "startFrame": 0,
                                           "levels": MAX_FRAMES})
        frames = [{"name": f.get("name"), "file": (f.get("source") or {}).get("path"),
                   "line": f.get("line")} for f in trace.get("stackFrames", [])]
        threads.append({"id": thread["id"], "name": thread.get("name"), "frames": frames})
    document = {"threads": threads}
    if evaluate is not None:
        body, output = dap.request_collecting_output(
            "evaluate", {"expression": "`" + evaluate, "context": "repl"})
        document["evaluate"] = {"result": body.get("result", ""), "output": output}
    dap.send("disconnect", {"terminateDebuggee": False})
    return document


def main(argv):
    evaluate = None
    if len(argv) == 7 and argv[5] == "--evaluate":
        evaluate = argv[6]
        argv = argv[:5]
    if len(argv) != 5 or argv[3] not in ("--core", "--pid"):
        sys.exit(__doc__)
    # A live process stays stopped as the attach stopped it (lldb-dap would continue it).
    target = ({"coreFile": argv[4]} if argv[3] == "--core"
              else {"pid": int(argv[4]), "stopOnEntry": True})
    dap = Dap([argv[1]])
    try:
        print(json.dumps(stacks(dap, argv[2], target, evaluate)))
    except (TimeoutError, EOFError, RuntimeError, ValueError, StopIteration) as error:
        sys.exit("lldb_dap_stacks: %s" % error)
    finally:
        dap.process.kill()
        dap.process.wait()


if __name__ == "__main__":
    main(sys.argv)
