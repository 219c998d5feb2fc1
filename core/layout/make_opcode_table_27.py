"""Writes core/layout/opcodes_27.inc: what the stack-depth analysis
(core/walk/stack_depth.cc) needs to know of each opcode of CPython 2.7.

    python2.7 core/layout/make_opcode_table_27.py > core/layout/opcodes_27.inc

2.7's dis has no stack_effect: the effects below are Python/compile.c's
opcode_stack_effect (2.7.18), transcribed, except where the eval loop
(Python/ceval.c) makes another depth than the compiler counts, as
make_opcode_table.py does for 3.6 and 3.7 (EVAL_LOOP_EFFECTS): a handler's
SETUP_* jump is entered with no depth (FinallyRole kCall; the compiler counts
3 more there), SETUP_WITH replaces the manager by its __exit__ and pushes
__enter__'s result (+1; the compiler counts 4), a finally or with-cleanup
body ends at END_FINALLY with its None on top (-1; the compiler counts -3).
Opcode numbers, names and jump kinds come from this interpreter's opcode
module. tests/stack_depth_test.cc checks the table against co_stacksize of
2.7.18's own code objects (tests/data/stack_depths_27.json).
"""
import opcode
import sys

from opcode_forms import SMALL, large_form


def nargs(oparg):  # compile.c's NARGS: positional + 2 * keyword arguments
    return (oparg % 256) + 2 * (oparg // 256)


# name: (effect falling through, effect jumping), each a function of oparg.
def same(value):
    return (lambda oparg: value, lambda oparg: value)


EFFECTS = {
    "POP_TOP": same(-1), "ROT_TWO": same(0), "ROT_THREE": same(0), "DUP_TOP": same(1),
    "ROT_FOUR": same(0), "NOP": same(0),
    "UNARY_POSITIVE": same(0), "UNARY_NEGATIVE": same(0), "UNARY_NOT": same(0),
    "UNARY_CONVERT": same(0), "UNARY_INVERT": same(0),
    "SLICE+0": same(0), "SLICE+1": same(-1), "SLICE+2": same(-1), "SLICE+3": same(-2),
    "STORE_SLICE+0": same(-2), "STORE_SLICE+1": same(-3), "STORE_SLICE+2": same(-3),
    "STORE_SLICE+3": same(-4),
    "DELETE_SLICE+0": same(-1), "DELETE_SLICE+1": same(-2), "DELETE_SLICE+2": same(-2),
    "DELETE_SLICE+3": same(-3),
    "STORE_MAP": same(-2), "STORE_SUBSCR": same(-3), "DELETE_SUBSCR": same(-2),
    "GET_ITER": same(0), "PRINT_EXPR": same(-1), "PRINT_ITEM": same(-1),
    "PRINT_NEWLINE": same(0), "PRINT_ITEM_TO": same(-2), "PRINT_NEWLINE_TO": same(-1),
    "BREAK_LOOP": same(0),
    "SETUP_WITH": same(1),      # eval loop (the compiler: 4)
    "WITH_CLEANUP": same(-1),   # __exit__ removed from below the 1-3 values of why
    "LOAD_LOCALS": same(1), "RETURN_VALUE": same(-1), "IMPORT_STAR": same(-1),
    "EXEC_STMT": same(-3), "YIELD_VALUE": same(0), "POP_BLOCK": same(0),
    "END_FINALLY": same(-1),    # eval loop, its None popped (the compiler: -3)
    "BUILD_CLASS": same(-2),
    "STORE_NAME": same(-1), "DELETE_NAME": same(0),
    "UNPACK_SEQUENCE": (lambda a: a - 1, lambda a: a - 1),
    "FOR_ITER": same(1),        # jumping: below
    "LIST_APPEND": same(-1), "STORE_ATTR": same(-2), "DELETE_ATTR": same(-1),
    "STORE_GLOBAL": same(-1), "DELETE_GLOBAL": same(0),
    "DUP_TOPX": (lambda a: a, lambda a: a),
    "LOAD_CONST": same(1), "LOAD_NAME": same(1),
    "BUILD_TUPLE": (lambda a: 1 - a, lambda a: 1 - a),
    "BUILD_LIST": (lambda a: 1 - a, lambda a: 1 - a),
    "BUILD_SET": (lambda a: 1 - a, lambda a: 1 - a),
    "BUILD_MAP": same(1), "LOAD_ATTR": same(0), "COMPARE_OP": same(-1),
    "IMPORT_NAME": same(-1), "IMPORT_FROM": same(1),
    "JUMP_FORWARD": same(0), "JUMP_ABSOLUTE": same(0),
    "JUMP_IF_FALSE_OR_POP": (lambda a: -1, lambda a: 0),
    "JUMP_IF_TRUE_OR_POP": (lambda a: -1, lambda a: 0),
    "POP_JUMP_IF_FALSE": same(-1), "POP_JUMP_IF_TRUE": same(-1),
    "LOAD_GLOBAL": same(1),
    "SETUP_LOOP": same(0), "SETUP_EXCEPT": same(0), "SETUP_FINALLY": same(0),
    "LOAD_FAST": same(1), "STORE_FAST": same(-1), "DELETE_FAST": same(0),
    "RAISE_VARARGS": (lambda a: -a, lambda a: -a),
    "CALL_FUNCTION": (lambda a: -nargs(a), lambda a: -nargs(a)),
    "CALL_FUNCTION_VAR": (lambda a: -nargs(a) - 1, lambda a: -nargs(a) - 1),
    "CALL_FUNCTION_KW": (lambda a: -nargs(a) - 1, lambda a: -nargs(a) - 1),
    "CALL_FUNCTION_VAR_KW": (lambda a: -nargs(a) - 2, lambda a: -nargs(a) - 2),
    "MAKE_FUNCTION": (lambda a: -a, lambda a: -a),
    "BUILD_SLICE": (lambda a: -2 if a == 3 else -1, lambda a: -2 if a == 3 else -1),
    "MAKE_CLOSURE": (lambda a: -a - 1, lambda a: -a - 1),
    "LOAD_CLOSURE": same(1), "LOAD_DEREF": same(1), "STORE_DEREF": same(-1),
    "EXTENDED_ARG": same(0),    # a prefix
    "SET_ADD": same(-1), "MAP_ADD": same(-2),
}
for name in opcode.opmap:
    if name.startswith(("BINARY_", "INPLACE_")):
        EFFECTS[name] = same(-1)
# Jumping, the exhausted iterator is popped.
EFFECTS["FOR_ITER"] = (lambda a: 1, lambda a: -1)

NO_FALL_THROUGH = {"RETURN_VALUE", "RAISE_VARARGS", "JUMP_FORWARD", "JUMP_ABSOLUTE", "BREAK_LOOP"}
# STOP_CODE never runs; CONTINUE_LOOP unwinds blocks the analysis does not model.
UNKNOWN = {"STOP_CODE", "CONTINUE_LOOP"}
CALL_KINDS = {"CALL_FUNCTION": "kCallFunction27", "CALL_FUNCTION_VAR": "kCallFunction27Star",
              "CALL_FUNCTION_KW": "kCallFunction27Star",
              "CALL_FUNCTION_VAR_KW": "kCallFunction27StarStar"}
FINALLY_ROLES = {"SETUP_EXCEPT": "kCall", "SETUP_FINALLY": "kCall", "SETUP_WITH": "kCall",
                 "END_FINALLY": "kEnd"}


def facts(number):
    name = opcode.opname[number]
    if name.startswith("<") or name in UNKNOWN:
        return name if not name.startswith("<") else "", "{}"
    if name not in EFFECTS:
        raise SystemExit("no effect for %s" % name)
    plain, jumped = EFFECTS[name]
    if number in opcode.hasjabs:
        jump = "kAbsolute"
    elif number in opcode.hasjrel:
        jump = "kForward"  # 2.7's relative jumps all go forwards
    else:
        jump = "kNone"
    fields = [
        "true", str(number), "0", "JumpKind::" + jump,
        "false" if name in NO_FALL_THROUGH else "true",
        "CallKind::" + CALL_KINDS.get(name, "kNone"),
        "{" + ", ".join(str(plain(a)) for a in range(SMALL)) + "}",
        "{" + ", ".join(str(jumped(a)) for a in range(SMALL)) + "}",
    ]
    for effect in (plain, jumped):
        form = large_form(effect)
        fields.append("{" + ("false, 0, 0, 0, 0" if form is None else "true, %d, %d, %d, %d" % form) + "}")
    if name in FINALLY_ROLES:
        fields.append("FinallyRole::" + FINALLY_ROLES[name])
    return name, "{" + ", ".join(fields) + "}"


def main():
    version = ".".join(map(str, sys.version_info[:3]))
    print("// Generated by core/layout/make_opcode_table_27.py from CPython %s" % version)
    print("// (%s); do not edit. One OpcodeFacts per opcode 0..255" % sys.executable)
    print("// (core/layout/opcodes.h): valid, base, caches, jump, falls through, call,")
    print("// effect of opargs 0..15 without and with the jump, the large-oparg forms, the")
    print("// finally role. Effects: compile.c's opcode_stack_effect, as the eval loop makes them.")
    for number in range(256):
        name, text = facts(number)
        print("/* %d %s */ %s," % (number, name, text))


main()
