#!/usr/bin/env python3
"""Writes corpus/build seeds: the OpenCL C sources that tests/*.c and
bench/*.c hold as C string literals (those defining a kernel), each as a
fuzz_build input (an options line, then the source).

Usage: seed_sources.py OUTDIR [MAX]   (run from the repository root)
"""
import glob
import hashlib
import os
import re
import sys

LITERALS = re.compile(r'(?:"(?:[^"\\\n]|\\.)*"\s*)+')
ONE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
ESCAPES = {'n': '\n', 't': '\t', '"': '"', '\\': '\\', "'": "'", '0': '\0'}
OPTIONS = ['', '-cl-std=CL3.0', '-cl-kernel-arg-info', '-cl-fast-relaxed-math',
           '-skein-bounds-check', '-cl-opt-disable', '-cl-std=CL2.0 -g']


def unescape(s):
    return re.sub(r'\\(.)', lambda m: ESCAPES.get(m.group(1), m.group(1)), s)


def sources(path):
    text = open(path, encoding='utf-8', errors='replace').read()
    for m in LITERALS.finditer(text):
        src = ''.join(unescape(p) for p in ONE.findall(m.group(0)))
        if re.search(r'\b(__)?kernel\s+void\b', src) and '%' not in src[:2]:
            yield src


def main():
    out = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 30
    os.makedirs(out, exist_ok=True)
    seen = set()
    files = sorted(glob.glob('tests/*.c') + glob.glob('bench/*.c'))
    n = 0
    for path in files:
        for src in sources(path):
            if src in seen or len(src) > 6000:
                continue
            seen.add(src)
            opts = OPTIONS[n % len(OPTIONS)]
            data = (opts + '\n' + src).encode()
            name = '%s-%s' % (os.path.basename(path)[:-2],
                              hashlib.sha1(data).hexdigest()[:8])
            with open(os.path.join(out, name), 'wb') as f:
                f.write(data)
            n += 1
            if n >= limit:
                return


main()
