"""The clang-tidy results cache of scripts/tidy.sh: a source file found clean once is not
checked again while nothing it is checked from has changed.

A file's key is a SHA-256 over everything clang-tidy reads for it: clang-tidy's version,
every .clang-tidy of the checkout and scripts/tidy.sh, the file's compile command (its
output file dropped, the checkout's path written as <root> so that a clone in another
folder shares the cache), the content of every file of the checkout it includes (the
compiler's -M list) and the path, size and modification time of every header from
outside the checkout. A clean key is an empty file named after it in the cache folder.

  tidy_cache.py pending BUILD ROOT CACHE TIDY_VERSION KEYS FILE...
      prints the FILEs without a clean key (one per line) and writes "key file" lines for
      them to KEYS; a file whose key cannot be computed is printed, never skipped
  tidy_cache.py record CACHE KEYS
      records every key of KEYS as clean
"""
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys


def compile_commands(build):
    with open(os.path.join(build, "compile_commands.json")) as f:
        return {os.path.realpath(e["file"]): e for e in json.load(f)}


def without_output(arguments):
    """The compile command without `-o OUT` and `-c` (the source stays)."""
    kept, skip = [], False
    for argument in arguments:
        if skip:
            skip = False
        elif argument == "-o":
            skip = True
        elif argument != "-c":
            kept.append(argument)
    return kept


def dependencies(entry, arguments):
    """Every file the compiler reads for the entry, from its -M make rule."""
    rule = subprocess.run(arguments + ["-M"], cwd=entry["directory"], capture_output=True,
                          text=True, check=True).stdout
    paths = rule.replace("\\\n", " ").split(":", 1)[1].split()
    return sorted({os.path.realpath(os.path.join(entry["directory"], p)) for p in paths})


def key_of(entry, root, fixed):
    arguments = without_output(shlex.split(entry["command"]))
    digest = hashlib.sha256(fixed)
    digest.update(" ".join(arguments).replace(root, "<root>").encode())
    inputs = []  # sorted by what is hashed, which is the same in every clone
    for path in dependencies(entry, arguments):
        if path.startswith(root + os.sep):
            with open(path, "rb") as f:
                content = hashlib.sha256(f.read()).hexdigest()
            inputs.append(f"<root>/{os.path.relpath(path, root)} {content}")
        else:
            status = os.stat(path)
            inputs.append(f"{path} {status.st_size} {status.st_mtime_ns}")
    for line in sorted(inputs):
        digest.update(line.encode() + b"\n")
    return digest.hexdigest()


def pending(build, root, cache, tidy_version, keys_path, files):
    root = os.path.realpath(root)
    entries = compile_commands(build)
    # What applies to every file: clang-tidy, every .clang-tidy of the checkout and the
    # script that runs it.
    configs = subprocess.run(["git", "ls-files", "--", ".clang-tidy", "*/.clang-tidy"], cwd=root,
                             capture_output=True, text=True, check=True).stdout.split()
    fixed = tidy_version.encode() + b"\0"
    for name in sorted(configs) + ["scripts/tidy.sh"]:
        with open(os.path.join(root, name), "rb") as f:
            fixed += name.encode() + b"\0" + hashlib.sha256(f.read()).digest()

    def check(path):
        try:
            return path, key_of(entries[os.path.realpath(path)], root, fixed)
        except (KeyError, OSError, subprocess.CalledProcessError, IndexError):
            return path, None

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(check, files))
    with open(keys_path, "w") as keys:
        for path, key in results:
            if key is None:
                print(path)
            elif not os.path.exists(os.path.join(cache, key)):
                print(path)
                keys.write(f"{key} {path}\n")


def record(cache, keys_path):
    os.makedirs(cache, exist_ok=True)
    with open(keys_path) as keys:
        for line in keys:
            open(os.path.join(cache, line.split(" ", 1)[0]), "w").close()


if __name__ == "__main__":
    if sys.argv[1] == "pending":
        pending(*sys.argv[2:7], sys.argv[7:])
    elif sys.argv[1] == "record":
        try:
            record(*sys.argv[2:4])
        except OSError as error:
            sys.exit(f"tidy_cache.py: {error}")
    else:
        sys.exit(f"tidy_cache.py: unknown command {sys.argv[1]}")
