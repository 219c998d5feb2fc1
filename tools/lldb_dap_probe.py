#!/usr/bin/env python3
"""Speaks DAP to LLDB 22's lldb-dap over stdio and prints a thread's call stack as an editor
would get it (issue 16, not yet a test): initialize, attach (to a core here) with pyunwind and
its frame provider loaded through initCommands, configurationDone, threads, stackTrace.

    tools/lldb_dap_probe.py INSTALL_DIR CORE frames

Found with LLDB 22.1.8 on the 3.12.6 threads fixture core: stackTrace of thread 1 has the
right number of frames (2 native + 12 Python), but all 12 Python frames come back as the first
one (park_forever _truth.py:41). lldb-dap does go through the frame provider (the count and
the first frame show it); why every synthetic frame resolves to the first is not established
(to check: whether 22.1.8 gives synthetic frames distinct stack ids).
Note: lldb-dap answers attach only after configurationDone.
"""
import json, subprocess, sys, os
L=os.environ.get("PYUNWIND_LLDB_CACHE", "/var/cache/pyunwind-lldb") + "/22"
env=dict(os.environ, LD_LIBRARY_PATH=L+"/usr/lib/x86_64-linux-gnu:"+L+"/usr/lib/llvm-22/lib", PATH="/usr/bin:/bin")
p=subprocess.Popen([L+"/usr/lib/llvm-22/bin/lldb-dap"],stdin=subprocess.PIPE,stdout=subprocess.PIPE,env=env)
seq=[0]
def send(cmd,args=None):
    seq[0]+=1; m={"seq":seq[0],"type":"request","command":cmd}
    if args is not None: m["arguments"]=args
    b=json.dumps(m).encode(); p.stdin.write(b"Content-Length: %d\r\n\r\n"%len(b)+b); p.stdin.flush(); return seq[0]
def recv():
    h=b""
    while not h.endswith(b"\r\n\r\n"):
        c=p.stdout.read(1)
        if not c: raise EOFError
        h+=c
    n=int([l for l in h.split(b"\r\n") if l.startswith(b"Content-Length")][0].split(b":")[1])
    return json.loads(p.stdout.read(n))
def wait(s):
    while True:
        m=recv()
        if m.get("type")=="response" and m.get("request_seq")==s: return m
        if m.get("type")=="event" and m.get("event")=="output": sys.stderr.write("OUT: "+m["body"].get("output",""))
inst=sys.argv[1]; core=sys.argv[2]
print(wait(send("initialize",{"adapterID":"lldb-dap","clientID":"t"}))["success"])
a=send("attach",{"coreFile":core,"initCommands":["plugin load %s/libpyunwind_lldb.so"%inst]+(["command script import %s/pyunwind_lldb_frames.py"%inst] if len(sys.argv)>3 else [])})
while True:
    m=recv()
    if m.get("type")=="event" and m.get("event")=="initialized": break
    if m.get("type")=="response": print("early", m.get("command"), m.get("success"), m.get("message"))
c=send("configurationDone")
got=set()
while len(got)<2:
    m=recv()
    if m.get("type")=="response" and m.get("request_seq") in (a,c):
        print(m["command"], m.get("success"), m.get("message")); got.add(m["request_seq"])
th=wait(send("threads"))["body"]["threads"]
print("threads", len(th))
st=wait(send("stackTrace",{"threadId":th[0]["id"],"startFrame":0,"levels":100}))
for f in st["body"]["stackFrames"][:20]:
    print(f.get("name"), (f.get("source") or {}).get("name"), f.get("line"))
r=wait(send("evaluate",{"expression":"`target frame-provider list","context":"repl"}))
print("EVAL", r.get("body",{}).get("result","")[:200].replace("\n"," | "))
print("N", len(st["body"]["stackFrames"]), len(set((f.get("name"),f.get("line")) for f in st["body"]["stackFrames"])))
send("disconnect",{"terminateDebuggee":False}); p.kill()
