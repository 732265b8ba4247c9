#!/usr/bin/env python3
"""notes: the smallest source that works, the one of the tutorials.

It holds three notes in memory and hands each out as a claude job that
asks for one tag, then prints the tag that comes back.  source.py,
beside it, answers the three calls of the source contract
(sandcastled(8), SOURCE CONTRACT); both use only Python's standard
library.

    python3 examples/notes.py -listen 192.168.1.20:8080 \\
        -token-file ~/.local/share/sandcastle/secrets/notes
"""

import source

NOTES = [
    "Soak the beans overnight, then simmer them with garlic and two bay "
    "leaves for about two hours.",
    "Renew the car insurance before the 15th; last year's quote is in "
    "the blue folder.",
    "The fern by the window wants water twice a week and no direct sun.",
]

# The reply must be one object with one string: the box checks it
# against this schema before the result comes back.
SCHEMA = {
    "type": "object",
    "properties": {"tag": {"type": "string"}},
    "required": ["tag"],
    "additionalProperties": False,
}


class Notes(source.Source):
    name, capability, noun, plural = "notes", "claude", "note", "notes"
    field, verb = "tag", "tagged"


def job(note):
    return {"prompt": "Give this note one tag, a single lowercase word "
                      "that says what it is about.\n\n" + note,
            "schema": SCHEMA}


def main():
    opts = source.parser("notes", "the example source of sandcastle",
                         "192.168.1.20:8080").parse_args()
    source.serve(Notes([(None, job(n)) for n in NOTES]), opts)


if __name__ == "__main__":
    main()
