"""Python frames stopped inside C code they called, as CPython's own test_gdb stops them: for
where py-up starts (the debugger's selected native frame is the C code, newer than Python
frame 0) and for the C call under each frame.

usage: python stopped_in_c.py TRUTH_JSON

Threads (role: where it is parked):
  main      foo() -> bar(args) -> baz(*args) -> time.sleep: a C function called from Python
            called from Python; the thread a debugger selects when it attaches
  callback  outer() -> sorted(..., key=key) -> key() -> time.sleep: a builtin that called
            back into Python
  slot      MyList(gen()) -> MyList.__init__ -> super().__init__ (a method-wrapper) ->
            the generator -> time.sleep: a slot wrapper on the stack

Truth: {"scenario", "pid", "python", "threads": [{"native_id", "role", "frames", "calling"}],
"reprs": {global: repr()}}: the frames innermost first; per frame, repr() of what it is
calling where that is not Python code (the C call py-bt prints under it), null where it is
calling Python code (main: baz calls time.sleep; callback: key calls time.sleep, outer
sorted; slot: items calls time.sleep, MyList.__init__ the method-wrapper super().__init__,
make_list the class MyList); and repr() of the C-level callables kept in globals
(CALLABLES), as the process itself gives them.
"""
import sys
import threading
import time
import types

from scenario_truth import Roll, truth_of, write_truth

TRUTH = sys.argv[1]
ROLL = Roll(3)
CALLING = {}  # role -> repr() of what its frames call, innermost first (then null)


def baz(*args):
    CALLING["main"] = [repr(time.sleep)]
    ROLL.here("main")
    while True:
        time.sleep(3600)  # parked


def bar(a, b, c):
    baz(a, b, c)


def foo():
    bar(1, 2, 3)


def key(item):
    CALLING["callback"] = [repr(time.sleep), repr(sorted)]
    ROLL.here("callback")
    while True:
        time.sleep(3600)  # parked
    return item


def outer():
    return sorted([2, 1], key=key)


def items():
    CALLING["slot"][0] = repr(time.sleep)
    ROLL.here("slot")
    while True:
        time.sleep(3600)  # parked
    yield 1


class MyList(list):
    def __init__(self, iterable):
        if isinstance(iterable, types.GeneratorType):
            CALLING["slot"] = [None, repr(super().__init__), repr(MyList)]
        super().__init__(iterable)

    def total(self):
        return sum(self)


def make_list():
    return MyList(items())


# The C-level callables (and instances, a method bound to one, a class) py-print shows as
# repr() does, each a global of this module.
SAMPLE = MyList([])
C_FUNCTION = len
C_METHOD = SAMPLE.append
METHOD_WRAPPER = super(MyList, SAMPLE).__init__
SLOT_WRAPPER = object.__init__
METHOD_DESCRIPTOR = type(threading.Lock()).acquire
# Bound to a tuple, whose repr pyunwind rebuilds (a list subclass's own __repr__ it does not).
BOUND_METHOD = types.MethodType(MyList.total, (1, 2))


class Plain:
    """object.__repr__: the class's module and qualified name."""

    class Inner:
        pass

    def method(self):
        return self


INSTANCE = Plain()
NESTED_INSTANCE = Plain.Inner()
BOUND_TO_INSTANCE = INSTANCE.method
CLASS = Plain.Inner
CALLABLES = {name: globals()[name] for name in (
    "C_FUNCTION", "C_METHOD", "METHOD_WRAPPER", "SLOT_WRAPPER", "METHOD_DESCRIPTOR",
    "BOUND_METHOD", "INSTANCE", "NESTED_INSTANCE", "BOUND_TO_INSTANCE", "CLASS")}


def main():
    for role, target in (("callback", outer), ("slot", make_list)):
        threading.Thread(target=target, name=role, daemon=True).start()
    reprs = {name: repr(value) for name, value in CALLABLES.items()}

    def record():
        threads = ROLL.threads(leave_out={threading.get_ident()})
        for thread in threads:
            calling = CALLING.get(thread["role"], [])
            thread["calling"] = (calling + [None] * len(thread["frames"]))[:len(thread["frames"])]
        write_truth(TRUTH, dict(truth_of("stopped_in_c", threads), reprs=reprs))

    recorder = threading.Thread(target=record, daemon=True)
    recorder.start()
    foo()


main()
