#!/usr/bin/env python3
"""Generates liborrery-measure's MPI wrappers from mpi_functions.txt.

usage: generate_wrappers.py TABLE MPI_H OUTDIR

Takes each function's C prototype from the MPI implementation's mpi.h (so the
wrappers always match it) and what each argument means from the table, and
writes into OUTDIR:
  mpi_catalog.cpp          the FunctionInfo table
  mpi_function_ids.h       one FunctionId constant per function
  mpi_wrappers_c.cpp       the C wrappers MPI_Xxx -> PMPI_Xxx
  mpi_wrappers_fortran.cpp mpi_xxx_, mpi_xxx__, mpi_xxx, MPI_XXX, MPI_Xxx_f08 -> pmpi_xxx_
"""
import re
import sys
from pathlib import Path

CATEGORIES = {
    "send": "kSend", "recv": "kRecv", "sendrecv": "kSendrecv", "isend": "kIsend",
    "irecv": "kIrecv", "send_init": "kSendInit", "recv_init": "kRecvInit",
    "start": "kStart", "startall": "kStartall", "wait": "kWait", "test": "kTest",
    "waitall": "kWaitall", "testall": "kTestall", "waitany": "kWaitany",
    "testany": "kTestany", "waitsome": "kWaitsome", "testsome": "kTestsome",
    "probe": "kProbe", "iprobe": "kIprobe", "mprobe": "kMprobe", "improbe": "kImprobe",
    "mrecv": "kMrecv", "imrecv": "kImrecv", "request_free": "kRequestFree",
    "cancel": "kCancel", "coll": "kColl", "icoll": "kIcoll", "comm_new": "kCommNew",
    "comm_free": "kCommFree", "mgmt": "kMgmt", "rma": "kRma", "rma_sync": "kRmaSync",
    "io": "kIo", "query": "kQuery", "special": "kSpecial",
}
ROLES = {
    "sbuf", "scount", "stype", "scounts", "stypes", "rbuf", "rcount", "rtype", "rcounts",
    "rtypes", "dest", "source", "tag", "stag", "rtag", "root", "comm", "newcomm",
    "request", "requests", "nreq", "status", "statuses", "flag", "index", "outcount",
    "indices", "message",
}
# Roles whose value the handler reads before the call (others are outputs).
REQUEST_IN = {"wait", "test", "start", "request_free", "cancel"}
REQUESTS_IN = {"startall", "waitall", "testall", "waitany", "testany", "waitsome", "testsome"}
MESSAGE_IN = {"mrecv", "imrecv"}
# Hand-written in mpi_special.cpp; listed here so they get ids and regions.
SPECIAL = ["MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort", "MPI_Pcontrol"]


def fail(message):
    sys.exit(f"generate_wrappers.py: {message}")


def read_table(path):
    rows = []
    for number, raw in enumerate(Path(path).read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        name, category = fields[0], fields[1]
        base, _, op = category.partition(":")
        if base not in CATEGORIES:
            fail(f"{path}:{number}: unknown category '{category}'")
        flags, roles = set(), {}
        for item in fields[2:]:
            if "=" in item:
                arg, role = item.split("=", 1)
                if role not in ROLES:
                    fail(f"{path}:{number}: unknown role '{role}'")
                roles[arg] = role  # "a|b=role": the argument is called a or b in mpi.h
            else:
                flags.add(item)
        rows.append({"name": name, "category": base, "op": op, "flags": flags, "roles": roles})
    return rows


def read_prototypes(mpi_h):
    text = Path(mpi_h).read_text()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    pattern = re.compile(
        r"(?:^|\n)\s*(?:OMPI_DECLSPEC\s+)?(?P<ret>(?:const\s+)?[A-Za-z_]\w*\s*\**)\s*"
        r"(?P<name>MPI_[A-Za-z0-9_]+)\s*\((?P<args>[^()]*)\)[^;]*;")
    protos = {}
    for match in pattern.finditer(text):
        name = match.group("name")
        if name in protos:
            continue
        args = []
        raw_args = " ".join(match.group("args").split())
        if raw_args not in ("", "void"):
            for raw in raw_args.split(","):
                raw = raw.strip()
                if raw == "...":
                    args.append({"text": raw, "name": "...", "type": "..."})
                    continue
                m = re.match(r"^(.*?)([A-Za-z_]\w*)\s*((?:\[\s*\w*\s*\])*)$", raw)
                if not m:
                    fail(f"cannot parse argument '{raw}' of {name}")
                ctype = m.group(1).strip() + " *" * m.group(3).count("[")
                args.append({"text": raw, "name": m.group(2), "type": ctype.strip()})
        protos[name] = {"ret": " ".join(match.group("ret").split()), "args": args}
    return protos


def is_string(ctype):
    return re.fullmatch(r"(const\s+)?char\s*\*", ctype) is not None


def role_order(role):
    # Scalars first (nreq and comm are needed by the array conversions).
    return 0 if role in ("nreq", "comm") else 1 if role not in (
        "requests", "statuses", "stypes", "rtypes", "indices") else 2


def fast_path(row, cat, fid, pmpi_call):
    """The blocking send/receive wrappers' fast path (recorder.h: fast_path()):
    the same events as the generic path below it, without MpiArgs and the
    category dispatch of before_call/after_call."""
    arg = {role: name for name, role in row["roles"].items()}
    # An OpenMP worker thread records the call and its message on its own
    # location (worker_mpi.h); checked only when the fast path is not taken.
    if cat == "send":
        return ["  if (om::fast_path()) [[likely]] {",
                f"    const uint32_t region_ = om::fast_send_enter({fid}, {arg['dest']}, {arg['tag']}, "
                f"{arg['comm']}, {arg['scount']}, {arg['stype']});",
                f"    const int rc = {pmpi_call};",
                "    om::fast_leave(region_);",
                "    return rc;",
                "  }",
                "  if (om::worker_records()) {",
                f"    const uint32_t region_ = om::worker_send_enter({fid}, {arg['dest']}, {arg['tag']}, "
                f"{arg['comm']}, {arg['scount']}, {arg['stype']});",
                f"    const int rc = {pmpi_call};",
                "    om::worker_mpi_leave(region_);",
                "    return rc;",
                "  }"]
    if cat == "recv":
        status = arg["status"]
        return ["  if (om::fast_path()) [[likely]] {",
                f"    const uint32_t region_ = om::fast_enter({fid}, om::now());",
                "    MPI_Status status_local_{};",
                f"    if ({status} == MPI_STATUS_IGNORE) {status} = &status_local_;",
                f"    const int rc = {pmpi_call};",
                f"    om::fast_recv_leave(region_, rc, {arg['source']}, {arg['comm']}, {status});",
                "    return rc;",
                "  }",
                "  if (om::worker_records()) {",
                f"    const uint32_t region_ = om::worker_recv_enter({fid});",
                "    MPI_Status status_local_{};",
                f"    if ({status} == MPI_STATUS_IGNORE) {status} = &status_local_;",
                f"    const int rc = {pmpi_call};",
                f"    om::worker_recv_leave(region_, rc, {arg['source']}, {arg['comm']}, {status});",
                "    return rc;",
                "  }"]
    return []


def c_wrapper(row, proto, fid):
    name, cat = row["name"], row["category"]
    params = ", ".join(a["text"] for a in proto["args"])
    call_args = ", ".join(a["name"] for a in proto["args"])
    ret = proto["ret"]
    fast = fast_path(row, cat, fid, f"P{name}({call_args})")
    if fast:
        # The generic path in its own function: the fast path then needs no
        # big stack frame and no saved registers.
        out = [f"static __attribute__((noinline)) {ret} generic_{name}({params}) {{"]
    else:
        out = [f'extern "C" ORRERY_EXPORT {ret} {name}({params}) {{']
    out.append(f"  om::Call call({fid});")
    if cat == "query" or ret != "int":
        out.append(f"  return P{name}({call_args});")
        out.append("}")
        return "\n".join(out)
    out.append(f"  if (!call.handles()) return P{name}({call_args});")
    out.append("  om::MpiArgs a;")
    roles = sorted(((r, n) for n, r in row["roles"].items()), key=lambda x: role_order(x[0]))
    nreq = next((n for n, r in row["roles"].items() if r == "nreq"), None)
    types = {a["name"]: a["type"] for a in proto["args"]}
    for role, arg in roles:
        if role == "request":
            out.append(f"  a.request = {arg};")
            if cat in REQUEST_IN:
                out.append(f"  a.request_before = *{arg};")
        elif role == "requests":
            out.append(f"  a.requests = {arg};")
            out.append(f"  om::RequestSnapshot snapshot_({arg}, {nreq});")
            out.append("  a.requests_before = snapshot_.data();")
        elif role == "status":
            out.append("  MPI_Status status_local_{};")
            out.append(f"  if ({arg} == MPI_STATUS_IGNORE) {arg} = &status_local_;")
            out.append(f"  a.status = {arg};")
        elif role == "statuses":
            out.append(f"  om::StatusSpace statuses_local_({arg}, {nreq});")
            out.append(f"  {arg} = statuses_local_.data();")
            out.append(f"  a.statuses = {arg};")
        elif role == "message":
            out.append(f"  a.message = {arg};")
            if cat in MESSAGE_IN:
                out.append(f"  a.message_before = *{arg};")
        elif role == "comm" and types[arg].endswith("*"):
            out.append(f"  a.comm = *{arg};")  # MPI_Comm_free(MPI_Comm*) and kin
        else:
            out.append(f"  a.{role} = {arg};")
    out.append("  om::before_call(call, a);")
    out.append(f"  const int rc = P{name}({call_args});")
    out.append("  om::after_call(call, a, rc);")
    out.append("  return rc;")
    out.append("}")
    if fast:
        out.append("")
        out.append(f'extern "C" ORRERY_EXPORT {ret} {name}({params}) {{')
        out += fast
        out.append(f"  return generic_{name}({call_args});")
        out.append("}")
    return "\n".join(out)


def fortran_wrapper(row, proto, fid):
    name, cat = row["name"], row["category"]
    args = proto["args"]
    strings = [i for i, a in enumerate(args) if is_string(a["type"])]
    params = [f"void* a{i}" for i in range(len(args))] + ["MPI_Fint* ierr"]
    params += [f"size_t len{i}" for i in strings]
    forward = [f"a{i}" for i in range(len(args))] + ["ierr"] + [f"len{i}" for i in strings]
    types = ["void*"] * len(args) + ["MPI_Fint*"] + ["size_t"] * len(strings)
    lower = name.lower()
    impl = f"orrery_fortran_{lower}"
    out = [f'extern "C" ORRERY_EXPORT void {impl}({", ".join(params)}) {{',
           f"  using Pmpi = void (*)({', '.join(types)});",
           f'  static const auto pmpi = reinterpret_cast<Pmpi>(om::fortran_symbol("p{lower}_"));',
           f"  om::Call call({fid});"]
    fwd = ", ".join(forward)
    if cat == "query":
        out.append(f"  pmpi({fwd});")
    else:
        out.append(f"  if (!call.handles()) {{ pmpi({fwd}); return; }}")
        out.append("  om::MpiArgs a;")
        index = {a["name"]: i for i, a in enumerate(args)}
        before, after = [], []
        roles = sorted(((r, n) for n, r in row["roles"].items()), key=lambda x: role_order(x[0]))
        neighbor = "true" if row["op"].startswith("neighbor") else "false"
        for role, arg in roles:
            if arg not in index:
                fail(f"{name}: no argument '{arg}' in mpi.h")
            p = f"a{index[arg]}"
            fint = f"*static_cast<MPI_Fint*>({p})"
            if role in ("sbuf", "rbuf"):
                before.append(f"  a.{role} = om::fortran_buffer({p});")
            elif role in ("scount", "rcount", "dest", "source", "tag", "stag", "rtag", "root", "nreq"):
                before.append(f"  a.{role} = {fint};")
            elif role in ("stype", "rtype"):
                before.append(f"  a.{role} = PMPI_Type_f2c({fint});")
            elif role == "comm":
                before.append(f"  a.comm = PMPI_Comm_f2c({fint});")
            elif role in ("scounts", "rcounts"):
                before.append(f"  a.{role} = static_cast<const int*>({p});")
            elif role in ("stypes", "rtypes"):
                before.append(f"  om::FortranTypes {role}_c_({p}, a.comm, {neighbor});")
                before.append(f"  a.{role} = {role}_c_.data();")
            elif role == "request":
                before.append("  MPI_Request request_c_ = MPI_REQUEST_NULL;")
                if cat in REQUEST_IN:
                    before.append(f"  request_c_ = PMPI_Request_f2c({fint});")
                    before.append("  a.request_before = request_c_;")
                before.append("  a.request = &request_c_;")
                after.append(f"  request_c_ = PMPI_Request_f2c({fint});")
            elif role == "requests":
                before.append(f"  om::FortranRequests requests_c_(static_cast<MPI_Fint*>({p}), a.nreq);")
                before.append("  a.requests = requests_c_.data();")
                before.append("  a.requests_before = requests_c_.before();")
                after.append("  requests_c_.refresh();")
            elif role == "status":
                before.append("  MPI_Fint status_f_[om::kFortranStatusSize] = {};")
                before.append(f"  if (om::fortran_status_ignore({p})) {p} = status_f_;")
                before.append("  MPI_Status status_c_{};")
                before.append("  a.status = &status_c_;")
                after.append(f"  PMPI_Status_f2c(static_cast<MPI_Fint*>({p}), &status_c_);")
            elif role == "statuses":
                before.append(f"  om::FortranStatuses statuses_c_({p}, a.nreq);")
                before.append(f"  {p} = statuses_c_.fortran();")
                before.append("  a.statuses = statuses_c_.data();")
                after.append("  statuses_c_.convert();")
            elif role in ("flag", "outcount"):
                before.append(f"  int {role}_c_ = 0;")
                before.append(f"  a.{role} = &{role}_c_;")
                after.insert(0, f"  {role}_c_ = {fint};")
            elif role == "index":
                before.append("  int index_c_ = MPI_UNDEFINED;")
                before.append("  a.index = &index_c_;")
                after.append(f"  index_c_ = {fint};")
                after.append("  if (index_c_ != MPI_UNDEFINED) --index_c_;")
            elif role == "indices":
                before.append(f"  om::FortranIndices indices_c_(static_cast<MPI_Fint*>({p}), a.nreq);")
                before.append("  a.indices = indices_c_.data();")
                after.append("  indices_c_.convert(outcount_c_);")
            elif role == "newcomm":
                before.append("  MPI_Comm newcomm_c_ = MPI_COMM_NULL;")
                before.append("  a.newcomm = &newcomm_c_;")
                after.append(f"  newcomm_c_ = PMPI_Comm_f2c({fint});")
            elif role == "message":
                before.append("  MPI_Message message_c_ = MPI_MESSAGE_NULL;")
                if cat in MESSAGE_IN:
                    before.append(f"  message_c_ = PMPI_Message_f2c({fint});")
                    before.append("  a.message_before = message_c_;")
                before.append("  a.message = &message_c_;")
                after.append(f"  message_c_ = PMPI_Message_f2c({fint});")
        out += before
        out.append("  om::before_call(call, a);")
        out.append(f"  pmpi({fwd});")
        out.append("  if (*ierr == MPI_SUCCESS) {")
        out += ["  " + line for line in after]
        out.append("  }")
        out.append("  om::after_call(call, a, *ierr);")
    out.append("}")
    suffix = name[4:]
    for alias in (f"{lower}_", f"{lower}__", lower, name.upper(), f"MPI_{suffix}_f08"):
        out.append(f'extern "C" ORRERY_EXPORT void {alias}({", ".join(params)}) __attribute__((alias("{impl}")));')
    # Open MPI's mpi_f08 module calls ompi_xxx_f, the same code as mpi_xxx_.
    out.append("#if defined(OPEN_MPI)")
    out.append(f'extern "C" ORRERY_EXPORT void ompi_{lower[4:]}_f({", ".join(params)}) __attribute__((alias("{impl}")));')
    out.append("#endif")
    return "\n".join(out)


def main():
    if len(sys.argv) != 4:
        fail("usage: generate_wrappers.py TABLE MPI_H OUTDIR")
    table, mpi_h, outdir = sys.argv[1:]
    rows = read_table(table)
    protos = read_prototypes(mpi_h)
    rows = [r for r in rows if r["name"] not in SPECIAL]
    for special in SPECIAL:
        rows.append({"name": special, "category": "special", "op": "", "flags": {"nof"}, "roles": {}})
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)

    ids = ["#pragma once", "// Generated by generate_wrappers.py from mpi_functions.txt.",
           '#include "mpi_catalog.h"', "namespace orrery::measure::fn {"]
    catalog = ['// Generated by generate_wrappers.py from mpi_functions.txt.',
               '#include "mpi_catalog.h"', "namespace orrery::measure {",
               "const FunctionInfo kFunctions[] = {"]
    for i, row in enumerate(rows):
        ids.append(f"inline constexpr FunctionId {row['name']} = {i};")
        op = "".join(p.capitalize() for p in row["op"].split("_")) if row["op"] else "None"
        catalog.append(f'  {{"{row["name"]}", Category::{CATEGORIES[row["category"]]}, CollOp::k{op}}},')
    ids += [f"inline constexpr FunctionId kCount = {len(rows)};", "}  // namespace orrery::measure::fn"]
    catalog += ["};", f"const std::size_t kFunctionCount = {len(rows)};", "}  // namespace orrery::measure"]
    (out / "mpi_function_ids.h").write_text("\n".join(ids) + "\n")
    (out / "mpi_catalog.cpp").write_text("\n".join(catalog) + "\n")

    head = ["// Generated by generate_wrappers.py from mpi_functions.txt. Do not edit.",
            "#include <mpi.h>", "#include <cstddef>", '#include "mpi_function_ids.h"',
            '#include "export.h"', '#include "mpi_handlers.h"', '#include "worker_mpi.h"']
    c_parts = head + ["namespace om = orrery::measure;"]
    f_parts = head + ['#include "fortran_support.h"', "namespace om = orrery::measure;"]
    for row in rows:
        if row["category"] == "special":
            continue
        proto = protos.get(row["name"])
        if proto is None:
            print(f"generate_wrappers.py: note: {row['name']} not in mpi.h, skipped", file=sys.stderr)
            continue
        names = {a["name"] for a in proto["args"]}
        resolved = {}
        for arg, role in row["roles"].items():
            found = [n for n in arg.split("|") if n in names]
            if not found:
                fail(f"{row['name']}: table names argument '{arg}' that mpi.h does not have")
            resolved[found[0]] = role
        row["roles"] = resolved
        fid = f"om::fn::{row['name']}"
        c_parts.append(c_wrapper(row, proto, fid))
        # Fortran has no binding returning a value (MPI_Wtime, MPI_Aint_add, ...) through ierr.
        if "nof" not in row["flags"] and proto["ret"] == "int":
            f_parts.append(fortran_wrapper(row, proto, fid))
    (out / "mpi_wrappers_c.cpp").write_text("\n\n".join(c_parts) + "\n")
    (out / "mpi_wrappers_fortran.cpp").write_text("\n\n".join(f_parts) + "\n")


if __name__ == "__main__":
    main()
