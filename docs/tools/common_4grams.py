#!/usr/bin/env python3
"""Write src/classify/common-4grams.txt: the 4,096 commonest 4-byte sequences of real vLLM run
output, counted over the text of the ISO-Bench result archive (every string of every JSON file,
and the plain text files). The classifier's prefilter avoids starting its anchors with them.

Usage: docs/tools/common_4grams.py ../shared/isobench/archive > src/classify/common-4grams.txt
"""
import collections
import json
import os
import sys

TOP = 4096


def strings(value):
    if isinstance(value, str):
        yield value.encode()
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def texts(root):
    for folder, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            path = os.path.join(folder, name)
            if name.endswith(".json"):
                try:
                    with open(path, encoding="utf-8") as f:
                        yield from strings(json.load(f))
                except (ValueError, UnicodeDecodeError):
                    continue
            elif name.endswith(".txt"):
                with open(path, "rb") as f:
                    yield f.read()


def main():
    counts, total = collections.Counter(), 0
    for text in texts(sys.argv[1]):
        counts.update(text[i : i + 4] for i in range(len(text) - 3))
        total += len(text)
    print(f"# The {TOP} commonest 4-byte sequences (hex) of {total} bytes of real vLLM run output,")
    print("# with their counts there; written by docs/tools/common_4grams.py from the ISO-Bench archive.")
    for gram, count in counts.most_common(TOP):
        print(f"{gram.hex()} {count}")


if __name__ == "__main__":
    main()
