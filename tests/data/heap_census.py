"""py-heap's scenario: known populations of tracked objects, and the process's own census.

It allocates 20,000 instances of a class (Bulky), 20,000 tuples holding one each, 300 lists
of 1,000 ints, 200 dicts of 500 str keys, 100 sets of 300 ints, 2,000 closures, 1,000
instance dicts, and 500 generators, 300 coroutines and 100 async generators suspended at their
first yield (a generator's size depends on its code's frame), then
takes its census as py-heap must find it: gc.collect(), then for every object of
gc.get_objects() its count and sys.getsizeof by type(o).__name__. The census is taken in
census(), whose own list, dict and counters are gone when it returns (no cycle keeps them),
and is written as JSON bytes (not tracked) before the truth file is opened; main keeps no
other object, so the heap it parks with is the one the census saw. The truth's "census"
maps a type's name to [count, bytes], "containers" lists the 20 largest lists, tuples, dicts
and sets as [type name, len, bytes]; "populations" says what was made. Then gc.freeze() moves
every object to the permanent generation ("frozen" counts them), which py-heap walks too.

The six largest containers are held by a module global (CACHE, a dict), a class attribute
(Registry.members, a set), a local of the parked frames (`held`, a list, in main() and in
park()), a local of a suspended coroutine (`hoard`, a list, in hoarder()) and of a suspended
generator (`stash`, a list, in stasher()), and a list (the set of 5,000 str below). "referrers"
maps the address (id()) of each of the 20 largest containers to who holds it among those
three kinds, as [kind, name] pairs: gc.get_referrers() filtered to the dicts of the modules of
sys.modules and of the classes among gc.get_objects(), and the f_locals of the frames of this
thread (gc knows no running frame as a referrer) and of every generator, coroutine and async
generator that is neither running nor finished, each named as py-heap names it
("module.name", "Class.attr", "function (file:line) local NAME", the line where the frame is
parked).

It also makes untracked objects held in containers: 10,000 floats in a list, 5,000 bytes in a
list, 5,000 non-ASCII str in a set, 5,000
untracked tuples of a big int in a list, and each Bulky's attributes (an int, "bulky", None);
held in __slots__: 3,000 instances of Slotted (a str, a big int, a float, bytes) and of its
subclass SlottedMore (one more float); and held at a positive tp_dictoffset: the __dict__ of
1,000 functions and of 1,000 exceptions (untracked dicts of atomic values). It records in
"owned" the census py-heap takes of those: for every object of gc.get_objects(), the objects
it holds directly that the collector does not track -- a list's or tuple's items, a dict's
keys and values, a set's elements, an instance's attributes (what gc.get_referents gives of an
instance of a class with a managed dict), the values of its classes' member descriptors (the
__slots__ of each class up its __base__ chain while it is a heap type; a C heap type's object
members: re.Pattern's `pattern`) and the dict at its type's
positive __dictoffset__ (read there with ctypes), each only if gc.get_referents gives it (what
tp_traverse visits) -- each counted once (by id), type objects left out, as
{type name: [count, sys.getsizeof sum]}.
"""
import ctypes
import dis
import gc
import json
import os
import sys
import time
import types

from scenario_truth import python_facts


class Bulky:
    def __init__(self, number):
        self.number = number
        self.name = "bulky"
        self.peer = None


def counter(limit):
    total = 0
    for i in range(limit):
        total += (yield i) or 0
    return total


class Gate:
    def __await__(self):
        yield self


async def waiter(gate, ticks):
    for _ in range(ticks):
        await gate


async def ticker(start):
    yield start


async def hoarder(gate):
    hoard = list(range(45000))
    await gate
    return hoard


def stasher():
    stash = list(range(44000))
    yield
    yield stash


def closure(number):
    return lambda: number


class Slotted:
    __slots__ = ("text", "number", "real", "raw", "unset")  # `unset` never set: no value

    def __init__(self, i):
        self.text = "slot \u00e9 %d" % i
        self.number = 2 ** 41 + i
        self.real = i + 0.25
        self.raw = b"slot %d" % i


class SlottedMore(Slotted):
    __slots__ = ("extra",)

    def __init__(self, i):
        super().__init__(i)
        self.extra = i + 0.125


class Note(Exception):
    pass


def tagged():
    pass


class Registry:
    members = None  # a set of 40,000 ints (build)


POPULATIONS = {"Bulky": 20000, "tuples": 20000, "lists": 300, "dicts": 200, "sets": 100,
               "functions": 2000, "floats": 10000, "bytes": 5000, "strs": 5000,
               "untracked_tuples": 5000, "slotted": 3000, "slotted_more": 3000,
               "function_dicts": 1000, "exception_dicts": 1000, "generators": 500, "coroutines": 300,
               "async_generators": 100}
KEPT = []
CACHE = {}  # 30,000 entries (build)


def build():
    bulky = [Bulky(i) for i in range(POPULATIONS["Bulky"])]
    KEPT.append(bulky)
    KEPT.append([(i, bulky[i]) for i in range(POPULATIONS["tuples"])])  # tracked: hold a Bulky
    KEPT.append([list(range(1000)) for _ in range(POPULATIONS["lists"])])
    KEPT.append([{"k%d" % j: bulky[j] for j in range(500)} for _ in range(POPULATIONS["dicts"])])
    KEPT.append([set(range(i, i + 300)) for i in range(POPULATIONS["sets"])])
    KEPT.append([closure(i) for i in range(POPULATIONS["functions"])])
    # 1,000 instance dicts made real (split tables sharing the class's keys; 3.11 and 3.12
    # untrack those holding only atomic values at the next collection).
    KEPT.append([vars(b) for b in bulky[:1000]])
    # The largest containers, each held by one of the kinds py-heap names.
    CACHE.update(("c%d" % i, bulky[i % len(bulky)]) for i in range(30000))
    Registry.members = set(range(40000))
    # Untracked objects in containers (the collection in census() untracks the tuples).
    KEPT.append([i + 0.5 for i in range(POPULATIONS["floats"])])
    KEPT.append([b"x" * (2 + i % 64) for i in range(POPULATIONS["bytes"])])
    KEPT.append({"\u00e9t\u00e9 %d" % i for i in range(POPULATIONS["strs"])})
    KEPT.append([(2 ** 40 + i,) for i in range(POPULATIONS["untracked_tuples"])])
    # Untracked objects in __slots__, and in dicts at a positive tp_dictoffset.
    KEPT.append([Slotted(i) for i in range(POPULATIONS["slotted"])])
    KEPT.append([SlottedMore(i) for i in range(POPULATIONS["slotted_more"])])
    functions = [types.FunctionType(tagged.__code__, globals())
                 for _ in range(POPULATIONS["function_dicts"])]
    for i, function in enumerate(functions):
        function.tag = i + 0.75
    notes = [Note() for _ in range(POPULATIONS["exception_dicts"])]
    for i, note in enumerate(notes):
        note.weight = i + 0.5
    KEPT.extend([functions, notes])
    # Suspended generators, coroutines and async generators.
    generators = [counter(10) for _ in range(POPULATIONS["generators"])]
    for g in generators:
        next(g)
    coroutines = [waiter(Gate(), 3) for _ in range(POPULATIONS["coroutines"])]
    for c in coroutines:
        c.send(None)
    async_generators = [ticker(i) for i in range(POPULATIONS["async_generators"])]
    for a in async_generators:
        try:
            a.asend(None).send(None)
        except StopIteration:  # the value it yielded: the async generator waits at its yield
            pass
    KEPT.extend([generators, coroutines, async_generators])
    # Large containers only a suspended coroutine's and a generator's locals hold.
    hoarding = hoarder(Gate())
    hoarding.send(None)
    stashing = stasher()
    next(stashing)
    KEPT.append((hoarding, stashing))


CONTAINERS = (list, tuple, dict, set, frozenset)
MANAGED_DICT = 1 << 4  # Py_TPFLAGS_MANAGED_DICT
HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class statement's (or a C module's heap type)


def slots_and_dict(o):
    """The values of `o`'s __slots__ (its classes' member descriptors, up the __base__ chain
    while the class is a heap type) and the dict at a positive __dictoffset__, those of them
    gc.get_referents gives (what tp_traverse visits)."""
    t = type(o)
    wanted = []
    cls = t
    while cls is not None and cls.__flags__ & HEAPTYPE:
        for value in vars(cls).values():
            if type(value) is types.MemberDescriptorType:
                try:
                    wanted.append(value.__get__(o, t))
                except AttributeError:  # an unset slot
                    pass
        cls = cls.__base__
    dict_address = None
    if t.__dictoffset__ > 0 and not t.__flags__ & MANAGED_DICT:
        dict_address = ctypes.c_void_p.from_address(id(o) + t.__dictoffset__).value
    if not wanted and not dict_address:
        return []
    referents = gc.get_referents(o)
    visited = {id(r) for r in referents}
    found = [x for x in wanted if id(x) in visited]
    found += [r for r in referents if id(r) == dict_address]
    return found


def held(o):
    """What `o` holds directly, as py-heap reads it: the base type's items, never an
    overridden __iter__; an instance's attributes without making its __dict__."""
    t = type(o)
    held = []
    if issubclass(t, dict):
        held += dict.keys(o)
        held += dict.values(o)
    elif issubclass(t, list):
        held += list.__iter__(o)
    elif issubclass(t, tuple):
        held += tuple.__iter__(o)
    elif issubclass(t, (set, frozenset)):
        held += set.__iter__(o) if issubclass(t, set) else frozenset.__iter__(o)
    if t.__flags__ & MANAGED_DICT:
        held += gc.get_referents(o)
    held += slots_and_dict(o)
    return held


def owned_census(objects, own):
    """{type name: [count, sys.getsizeof sum]} of the untracked objects the tracked ones hold
    directly, each once; `own` are the census's own containers, left out."""
    seen = set()
    counts = {}
    for o in objects:
        if any(o is mine for mine in own):
            continue
        for x in held(o):
            if gc.is_tracked(x) or isinstance(x, type) or id(x) in seen:
                continue
            seen.add(id(x))
            name = type(x).__name__
            row = counts.get(name)
            if row is None:
                row = counts[name] = [0, 0]
            row[0] += 1
            row[1] += sys.getsizeof(x)
    return counts


def census():
    """{type name: [count, sys.getsizeof sum]} of every tracked object, and the 20 largest
    containers as [type name, len, sys.getsizeof], most bytes first, as JSON bytes."""
    gc.collect()
    # The permanent generation, which gc.get_objects() does not list, into the oldest one: it
    # holds what 3.12's collections move there (immortal objects: deep-frozen code's tuples).
    gc.unfreeze()
    counts = {}
    objects = gc.get_objects()
    largest = []  # after the census's list: not in it
    for o in objects:
        name = type(o).__name__
        row = counts.get(name)
        if row is None:
            row = counts[name] = [0, 0]
        row[0] += 1
        size = sys.getsizeof(o, 0)  # 0 where a __sizeof__ refuses (none here does)
        row[1] += size
        # The census's own containers are gone when it returns.
        if isinstance(o, CONTAINERS) and o is not objects and o is not counts:
            largest.append((size, name, len(o)))
    largest.sort(reverse=True)
    top = [[name, length, size] for size, name, length in largest[:20]]
    owned = owned_census(objects, (objects, counts, largest))
    return json.dumps(counts).encode(), json.dumps(top).encode(), json.dumps(owned).encode()


def largest_containers():
    """The 20 largest containers, as census() will find them."""
    gc.collect()
    sized = [(sys.getsizeof(o, 0), id(o)) for o in gc.get_objects() if isinstance(o, CONTAINERS)]
    sized.sort(reverse=True)
    by_id = {id(o): o for o in gc.get_objects() if isinstance(o, CONTAINERS)}
    return [by_id[address] for _, address in sized[:20]]


def referrers(containers, frames):
    """{hex address: [[kind, name], ...]} of `containers`: who holds each among the modules'
    dicts, the classes' dicts and `frames` ((frame, line) pairs), as gc.get_referrers says."""
    modules = [(name, m) for name, m in list(sys.modules.items())
               if isinstance(m, type(sys))]
    classes = [o for o in gc.get_objects() if isinstance(o, type)]
    out = {}
    for container in containers:
        holders = {id(r) for r in gc.get_referrers(container)}
        found = []
        for name, module in modules:
            if id(vars(module)) in holders:
                found += [["global", "%s.%s" % (name, key)]
                          for key, value in vars(module).items() if value is container]
        for cls in classes:
            if any(type(r) is dict and id(r) in holders for r in gc.get_referents(cls)):
                found += [["class_attribute", "%s.%s" % (cls.__name__, key)]
                          for key, value in vars(cls).items() if value is container]
        for frame, line in frames:  # a running frame is no referrer gc knows of: f_locals
            code = frame.f_code
            if not code.co_flags & 0x2:  # CO_NEWLOCALS: a module's "locals" are its globals
                continue
            found += [["local", "%s (%s:%d) local %s" % (code.co_qualname, code.co_filename,
                                                         line, key)]
                      for key, value in frame.f_locals.items() if value is container]
        out[hex(id(container))] = found
    return out


def park(held, python):
    """Records who holds the largest containers, takes the census, freezes, writes the truth,
    and parks holding `held`. The holders first: reading a frame's f_locals leaves a dict in
    the frame (3.11, 3.12), which the census then counts as py-heap will find it."""
    frames = []
    frame = sys._getframe()
    while frame is not None:
        frames.append((frame, frame.f_lineno))
        frame = frame.f_back
    frames[0] = (frames[0][0], PARK_LINE)  # parked at its time.sleep call, not here
    # Suspended generators' and coroutines' frames (a running one's is on the thread).
    gc.collect()
    for o in gc.get_objects():
        if isinstance(o, types.GeneratorType):
            frame, running = o.gi_frame, o.gi_running
        elif isinstance(o, types.CoroutineType):
            frame, running = o.cr_frame, o.cr_running
        elif isinstance(o, types.AsyncGeneratorType):
            frame, running = o.ag_frame, o.ag_running
        else:
            continue
        if frame is not None and not running:
            frames.append((frame, frame.f_lineno))
    held_by = json.dumps(referrers(largest_containers(), frames)).encode()
    del frames, frame
    data, containers, owned = census()
    gc.freeze()  # py-heap walks the permanent generation too: most of the census is there now
    facts = json.dumps({"pid": os.getpid(), "python": python, "populations": POPULATIONS,
                        "frozen": gc.get_freeze_count()}).encode()
    with open(sys.argv[1] + ".census", "wb") as out:
        out.write(data)
    with open(sys.argv[1] + ".tmp", "wb") as out:
        out.write(facts[:-1] + b', "census": ' + data + b', "containers": ' + containers +
                  b', "referrers": ' + held_by + b', "owned": ' + owned + b"}")
    del facts, held_by, data, containers, owned, out
    os.replace(sys.argv[1] + ".tmp", sys.argv[1])
    while True:
        time.sleep(3600)  # parked


# The line park() is parked at (its time.sleep call), found before the census: dis caches what
# it reads.
PARK_LINE = next(i.positions.lineno for i in dis.get_instructions(park) if i.argval == "sleep")


def main():
    gc.disable()  # no collection between the census and the park moves anything
    python = python_facts()  # sysconfig keeps what it reads: before the census
    build()
    held = list(range(50000))
    park(held, python)


main()
