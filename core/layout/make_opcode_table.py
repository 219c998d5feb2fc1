"""Writes core/layout/opcodes_3NN.inc: what the stack-depth analysis
(core/walk/stack_depth.cc) needs to know of each opcode of one CPython minor
version, asked of that version's own interpreter (dis, opcode).

    python3.NN core/layout/make_opcode_table.py > core/layout/opcodes_3NN.inc

3.6 to 3.10 (wordcode): no caches, jumps relative (forwards) or absolute, in
bytes before 3.10; 3.8's finally blocks get their FinallyRole; 3.6 and 3.7
(whose dis.stack_effect takes no `jump`) the eval loop's effects of their
jumping and block opcodes, EVAL_LOOP_EFFECTS.

Per opcode 0..255: the opcode it specializes or instruments (the base, whose
facts it shares), its inline cache entries, whether it jumps (relative,
forwards or backwards: every jump of 3.11-3.13 is), whether execution can go
on to the next instruction, what kind of call it makes, and its stack effect
from dis.stack_effect: exactly for opargs 0..15, and as
`constant + low * (oparg & 0xff) + high * (oparg >> 8) + odd * (oparg & 1)`
above that where that form holds for every oparg up to 65535 (else larger
opargs are refused).
"""
import dis
import opcode
import sys
import types

from opcode_forms import SMALL, large_form

NO_FALL_THROUGH = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE",
                   "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT",
                   "JUMP_ABSOLUTE", "BREAK_LOOP"}
# 3.14+: END_ASYNC_FOR's oparg points back at its loop's END_SEND so that
# sys.monitoring can report a branch; the eval loop never goes there (JUMPBY(0)).
MONITORING_ONLY_JUMPS = {"END_ASYNC_FOR"}
CALL_KINDS = {"CALL": "kCall", "PRECALL": "kCall", "CALL_KW": "kCallKw",
              "CALL_FUNCTION_EX": "kCallFunctionEx"}
LEGACY = sys.version_info < (3, 11)
# 3.6 and 3.7: dis.stack_effect takes no `jump` (3.7's gives the larger of the two; 3.6's is
# its compiler's upper bound, a try body counted 6 deep), so these opcodes' effects are written
# here as the eval loop makes them: (falling through, jumping). Their handlers (SETUP_*'s jump)
# are entered with no depth (FinallyRole kCall): an exception pushes 6, a finally body is
# entered with 1 to 6 values; a finally or with-cleanup body falls into END_FINALLY with its
# None on top, which it pops (an exception class re-raises, a return or a break jumps).
EVAL_LOOP_EFFECTS = {
    "FOR_ITER": (1, -1),               # jumping: the exhausted iterator popped
    "JUMP_IF_TRUE_OR_POP": (-1, 0),
    "JUMP_IF_FALSE_OR_POP": (-1, 0),
    "SETUP_EXCEPT": (0, 0),
    "SETUP_FINALLY": (0, 0),
    "SETUP_WITH": (1, 0),              # the manager replaced by its __exit__, __enter__'s result
    "SETUP_ASYNC_WITH": (0, 0),        # __aenter__'s awaited result popped and pushed back
    "POP_EXCEPT": (-3, -3),            # the EXCEPT_HANDLER block's 3 saved exception values
    "END_FINALLY": (-1, -1),
    "WITH_CLEANUP_START": (1, 1),      # None: __exit__ replaced by None, then None, the result
    "WITH_CLEANUP_FINISH": (-2, -2),   # the result and None popped
    "EXTENDED_ARG": (0, 0),            # a prefix (their dis refuses it)
}
OLD_FINALLY_ROLES = {"SETUP_EXCEPT": "kCall", "SETUP_FINALLY": "kCall", "SETUP_WITH": "kCall",
                     "SETUP_ASYNC_WITH": "kCall", "END_FINALLY": "kEnd"}
# CONTINUE_LOOP (inside a try or with body) unwinds blocks the pass does not model.
OLD_UNKNOWN = {"CONTINUE_LOOP"}
OLD = sys.version_info < (3, 8)
if LEGACY:
    # CALL_METHOD: [method or NULL, callable or self, args], as 3.11's CALL.
    CALL_KINDS = {"CALL_FUNCTION": "kCallFunction", "CALL_FUNCTION_KW": "kCallFunctionKw",
                  "CALL_METHOD": "kCall", "CALL_FUNCTION_EX": "kCallFunctionEx"}
# 3.8 (core/layout/opcodes.h, FinallyRole).
FINALLY_ROLES = {"BEGIN_FINALLY": "kBegin", "CALL_FINALLY": "kCall", "END_FINALLY": "kEnd",
                 "POP_FINALLY": "kEnd"}

all_opmap = dict(getattr(dis, "_all_opmap", opcode.opmap))
all_opmap.update(getattr(opcode, "_specialized_opmap", {}))
names = {number: name for name, number in all_opmap.items() if number < 256}
deopt = dict(getattr(dis, "deoptmap", {}))
caches = getattr(opcode, "_inline_cache_entries", None)  # 3.11+


def cache_entries(name):
    if caches is None:
        return 0
    if hasattr(caches, "get"):  # 3.13+: a dict by name (3.15: a frozendict)
        return caches.get(name, 0)
    return caches[opcode.opmap[name]]


def base_of(name):
    if name in deopt:
        return opcode.opname[deopt[name]] if isinstance(deopt[name], int) else deopt[name]
    if name.startswith("INSTRUMENTED_") and name[len("INSTRUMENTED_"):] in opcode.opmap:
        return name[len("INSTRUMENTED_"):]
    return name


def effect(number, oparg, jump):
    if OLD:
        name = opcode.opname[number]
        if name in EVAL_LOOP_EFFECTS:
            return EVAL_LOOP_EFFECTS[name][1 if jump else 0]
        try:  # no jump: the same either way
            if number < opcode.HAVE_ARGUMENT:
                return dis.stack_effect(number)
            return dis.stack_effect(number, oparg)
        except (ValueError, TypeError):
            return None
    try:
        if number < opcode.HAVE_ARGUMENT:  # takes no oparg: the eval loop ignores it
            return dis.stack_effect(number, jump=jump)
        return dis.stack_effect(number, oparg, jump=jump)
    except (ValueError, TypeError):
        return None


def large_form_of(number, jump):
    return large_form(lambda arg: effect(number, arg, jump))


def jump_target(number, name, arg, n_caches):
    """The target dis gives an instruction at offset 40 with oparg `arg`, in code units."""
    code = bytearray(200)
    code[40] = number
    code[41] = arg
    probe = (lambda: None).__code__.replace(co_code=bytes(code), co_exceptiontable=b"",
                                            co_linetable=b"")
    for instruction in dis.get_instructions(probe):
        if instruction.offset == 40:
            return instruction.argval // 2
    raise SystemExit(f"dis shows no instruction at offset 40 for {name}")


def jump_kind(number, name, n_caches):
    if number not in dis.hasjrel and number not in dis.hasjabs or name in MONITORING_ONLY_JUMPS:
        return "kNone"
    if LEGACY:  # every relative jump of 3.8-3.10 goes forwards
        return "kAbsolute" if number in dis.hasjabs else "kForward"
    if number in dis.hasjabs:
        raise SystemExit(f"{name}: absolute jumps are not handled")
    after = 20 + 1 + n_caches
    forward = jump_target(number, name, 3, n_caches)
    if forward == after + 3:
        return "kForward"
    if forward == after - 3:
        return "kBackward"
    raise SystemExit(f"{name}: jump target {forward} is neither {after}+3 nor -3")


def call_kind(base, number):
    kind = CALL_KINDS.get(base, "kNone")
    # 3.11's compiler counts the arguments as popped by PRECALL: its CALL's
    # effect does not depend on oparg, though the arguments are still there.
    if base == "CALL" and effect(number, 0, None) == effect(number, 5, None):
        return "kCallArgsPoppedBefore"
    return kind


def smalls(number, jump):
    values = [effect(number, arg, jump) for arg in range(SMALL)]
    return values


def resumed_value(name, values, large):
    """RETURN_GENERATOR: a resumed generator finds the value sent to it on its
    stack, which the POP_TOP after RETURN_GENERATOR pops. 3.11's and 3.12's dis
    say 0 (their compiler adds that prologue after counting depths), 3.13's 1."""
    if name == "GEN_START":
        # 3.10: a generator starts with the value sent to it, which GEN_START pops; counted
        # from an empty stack (the compiler starts generators at 1), it takes nothing.
        return [0] * SMALL, (0, 0, 0, 0)
    if name != "RETURN_GENERATOR":
        return values, large
    return [1] * SMALL, (1, 0, 0, 0)


def facts(number):
    name = names.get(number)
    if name is None or name.startswith("<"):
        return None, "{}"
    base = base_of(name)
    if base not in opcode.opmap or base in ("INSTRUMENTED_LINE", "INSTRUMENTED_INSTRUCTION",
                                            "ENTER_EXECUTOR", "CACHE", "RESERVED"):
        return name, "{}"  # unknown here: the analysis refuses the code object
    if OLD and base in OLD_UNKNOWN:
        return name, "{}"
    base_number = opcode.opmap[base]
    n_caches = cache_entries(base)
    jump = jump_kind(base_number, base, n_caches)
    plain = smalls(base_number, False)
    jumped = smalls(base_number, True) if jump != "kNone" else plain
    if plain[0] is None and plain[1] is None:
        return name, "{}"
    plain_large = large_form_of(base_number, False)
    jumped_large = large_form_of(base_number, True) if jump != "kNone" else plain_large
    plain, plain_large = resumed_value(base, plain, plain_large)
    jumped, jumped_large = resumed_value(base, jumped, jumped_large)
    fields = [
        "true",
        str(base_number),
        str(n_caches),
        "JumpKind::" + jump,
        "false" if base in NO_FALL_THROUGH else "true",
        "CallKind::" + call_kind(base, base_number),
        "{" + ", ".join("kNoEffect" if v is None else str(v) for v in plain) + "}",
        "{" + ", ".join("kNoEffect" if v is None else str(v) for v in jumped) + "}",
        "{" + ("false, 0, 0, 0, 0" if plain_large is None else "true, %d, %d, %d, %d" % plain_large) + "}",
        "{" + ("false, 0, 0, 0, 0" if jumped_large is None else "true, %d, %d, %d, %d" % jumped_large) + "}",
    ]
    roles = OLD_FINALLY_ROLES if OLD else FINALLY_ROLES
    if LEGACY and base in roles:
        fields.append("FinallyRole::" + roles[base])
    return name, "{" + ", ".join(fields) + "}"


def main():
    version = ".".join(map(str, sys.version_info[:3]))
    print(f"// Generated by core/layout/make_opcode_table.py from CPython {version}")
    print(f"// ({sys.executable}); do not edit. One OpcodeFacts per opcode 0..255")
    print("// (core/layout/opcodes.h): valid, base, caches, jump, falls through, call,")
    print("// effect of opargs 0..15 without and with the jump, then the large-oparg forms")
    print("// (3.8: and the finally role).")
    if dis.opmap["EXTENDED_ARG"] != opcode.EXTENDED_ARG:
        raise SystemExit("EXTENDED_ARG disagrees")
    for number in range(256):
        name, text = facts(number)
        print(f"/* {number} {name or ''} */ {text},")


main()
