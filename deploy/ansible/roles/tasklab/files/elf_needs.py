#!/usr/bin/env python3
"""What a Linux binary needs of the host that runs it, as JSON on stdout:
its architecture (from the ELF header, named as `uname -m` names it) and
the newest glibc symbol version it links against (the GLIBC_x.y names in
its dynamic symbol table, as `objdump -T FILE | grep GLIBC_` lists them;
none for a static binary). Runs on the Ansible controller, which has
Python already; needs nothing else."""

import json
import re
import struct
import sys

# e_machine values, by the names `uname -m` (and Ansible's
# ansible_facts.architecture) gives.
MACHINES = {3: "i386", 8: "mips", 20: "ppc", 21: "ppc64", 22: "s390x",
            40: "armv7l", 62: "x86_64", 183: "aarch64", 243: "riscv64",
            258: "loongarch64"}


def version_key(v):
    return tuple(int(x) for x in v.split("."))


def main(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        sys.exit(f"{path} is not an ELF binary: build tasklab for Linux (cargo build --release)")
    endian = "<" if data[5] == 1 else ">"
    (machine,) = struct.unpack(endian + "H", data[18:20])
    versions = {m.decode() for m in re.findall(rb"GLIBC_(\d+\.\d+(?:\.\d+)?)\x00", data)}
    glibc = max(versions, key=version_key) if versions else ""
    print(json.dumps({
        "arch": MACHINES.get(machine, f"e_machine {machine}"),
        "glibc": glibc,
        "static": not versions,
    }))


if __name__ == "__main__":
    main(sys.argv[1])
