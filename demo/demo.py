"""A small program for showing pyunwind: threads doing recognisable things, then parked.

    python3.11 demo/demo.py PIDFILE

- three pool workers, each blocked in queue.Queue.get() waiting for a job;
- a recursive-descent parser, parked deep inside parse_expr -> parse_term -> parse_factor
  -> (parenthesised) parse_expr -> ... ;
- a "reporter" thread asleep at the end of a nested call chain
  (run_report -> collect_metrics -> fetch_from_disk -> wait_for_io);
- an asyncio service on its own thread: a TaskGroup of fetchers, two of them gathered
  behind an aggregator, one awaiting another task;
- the main thread joining the parser thread.

Once every thread is in place, PIDFILE gets this process's PID. It then waits forever:
kill it when done.
"""
import asyncio
import os
import queue
import sys
import threading
import time

ready = {}  # name -> threading.Event, set just before a thread blocks


def announce_ready(name):
    ready[name].set()


# ---------------------------------------------------------------- the worker pool

jobs = queue.Queue()


def pool_worker(n):
    while True:
        announce_ready(f"worker-{n}")
        job = jobs.get()  # parked here: nobody ever submits a job
        job()


# ---------------------------------------------------------------- the recursive parser

class Parser:
    """expr := term ('+' term)* ; term := factor ('*' factor)* ; factor := NUMBER | '(' expr ')'"""

    def __init__(self, text):
        self.text = text
        self.pos = 0

    def parse_expr(self):
        value = self.parse_term()
        while self.peek() == "+":
            self.pos += 1
            value += self.parse_term()
        return value

    def parse_term(self):
        value = self.parse_factor()
        while self.peek() == "*":
            self.pos += 1
            value *= self.parse_factor()
        return value

    def parse_factor(self):
        if self.peek() == "(":
            self.pos += 1
            value = self.parse_expr()
            self.pos += 1  # ')'
            return value
        if self.peek() == "?":  # the innermost operand: wait here, as if for more input
            self.wait_for_input()
        start = self.pos
        while self.peek().isdigit():
            self.pos += 1
        return int(self.text[start:self.pos] or 0)

    def peek(self):
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def wait_for_input(self):
        announce_ready("parser")
        threading.Event().wait()


def parser_thread():
    Parser("1+2*(3+4*(5+(6*?)))").parse_expr()


# ---------------------------------------------------------------- the reporter's call chain

def wait_for_io():
    announce_ready("reporter")
    while True:
        time.sleep(3600)


def fetch_from_disk(path):
    return wait_for_io()


def collect_metrics(paths):
    return [fetch_from_disk(p) for p in paths]


def run_report():
    collect_metrics(["/var/log/app.log"])


# ---------------------------------------------------------------- the asyncio service

async def read_socket(seconds):
    await asyncio.sleep(seconds)


async def fetch(url):
    await read_socket(3600)


async def aggregate():
    await asyncio.gather(fetch("https://a.example/"), fetch("https://b.example/"))


async def wait_for(task):
    await task


async def service():
    async with asyncio.TaskGroup() as group:
        slow = group.create_task(fetch("https://slow.example/"), name="slow-fetch")
        group.create_task(aggregate(), name="aggregator")
        group.create_task(wait_for(slow), name="waiter")
        await asyncio.sleep(0.1)
        announce_ready("asyncio")


def asyncio_thread():
    asyncio.run(service())


# ---------------------------------------------------------------- start-up

def write_pid_when_ready(pidfile):
    for event in ready.values():
        event.wait()
    time.sleep(0.3)  # let the last thread step from "ready" into its blocking call
    tmp = pidfile + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{os.getpid()}\n")
    os.replace(tmp, pidfile)


def main(pidfile):
    threads = [threading.Thread(target=pool_worker, args=(n,), name=f"worker-{n}", daemon=True)
               for n in range(3)]
    threads.append(threading.Thread(target=parser_thread, name="parser", daemon=True))
    threads.append(threading.Thread(target=run_report, name="reporter", daemon=True))
    threads.append(threading.Thread(target=asyncio_thread, name="asyncio", daemon=True))
    for t in threads:
        ready[t.name] = threading.Event()
    ready["main"] = threading.Event()
    threading.Thread(target=write_pid_when_ready, args=(pidfile,), name="announcer",
                     daemon=True).start()
    for t in threads:
        t.start()
    announce_ready("main")
    threads[3].join()  # the parser never finishes: the main thread waits here


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: demo.py PIDFILE")
    main(sys.argv[1])
