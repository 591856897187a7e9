"""Where ``tokenizers``' Lowercase normalizer and Python's ``str.lower()`` differ (generated; do not edit).

Made by scripts/generate_lowercase_table.py from tokenizers 0.23.3 on Python 3.11:
code point to the reference's lowercase of that character alone.
"""

LOWERCASE: dict[int, str] = {
    0x3A3: "\u03c3",  # str.lower(): U+03C3
    0x1C89: "\u1c8a",  # str.lower(): U+1C89
    0xA7CB: "\u0264",  # str.lower(): U+A7CB
    0xA7CC: "\ua7cd",  # str.lower(): U+A7CC
    0xA7CE: "\ua7cf",  # str.lower(): U+A7CE
    0xA7D2: "\ua7d3",  # str.lower(): U+A7D2
    0xA7D4: "\ua7d5",  # str.lower(): U+A7D4
    0xA7DA: "\ua7db",  # str.lower(): U+A7DA
    0xA7DC: "\u019b",  # str.lower(): U+A7DC
    0x10D50: "\U00010d70",  # str.lower(): U+10D50
    0x10D51: "\U00010d71",  # str.lower(): U+10D51
    0x10D52: "\U00010d72",  # str.lower(): U+10D52
    0x10D53: "\U00010d73",  # str.lower(): U+10D53
    0x10D54: "\U00010d74",  # str.lower(): U+10D54
    0x10D55: "\U00010d75",  # str.lower(): U+10D55
    0x10D56: "\U00010d76",  # str.lower(): U+10D56
    0x10D57: "\U00010d77",  # str.lower(): U+10D57
    0x10D58: "\U00010d78",  # str.lower(): U+10D58
    0x10D59: "\U00010d79",  # str.lower(): U+10D59
    0x10D5A: "\U00010d7a",  # str.lower(): U+10D5A
    0x10D5B: "\U00010d7b",  # str.lower(): U+10D5B
    0x10D5C: "\U00010d7c",  # str.lower(): U+10D5C
    0x10D5D: "\U00010d7d",  # str.lower(): U+10D5D
    0x10D5E: "\U00010d7e",  # str.lower(): U+10D5E
    0x10D5F: "\U00010d7f",  # str.lower(): U+10D5F
    0x10D60: "\U00010d80",  # str.lower(): U+10D60
    0x10D61: "\U00010d81",  # str.lower(): U+10D61
    0x10D62: "\U00010d82",  # str.lower(): U+10D62
    0x10D63: "\U00010d83",  # str.lower(): U+10D63
    0x10D64: "\U00010d84",  # str.lower(): U+10D64
    0x10D65: "\U00010d85",  # str.lower(): U+10D65
    0x16EA0: "\U00016ebb",  # str.lower(): U+16EA0
    0x16EA1: "\U00016ebc",  # str.lower(): U+16EA1
    0x16EA2: "\U00016ebd",  # str.lower(): U+16EA2
    0x16EA3: "\U00016ebe",  # str.lower(): U+16EA3
    0x16EA4: "\U00016ebf",  # str.lower(): U+16EA4
    0x16EA5: "\U00016ec0",  # str.lower(): U+16EA5
    0x16EA6: "\U00016ec1",  # str.lower(): U+16EA6
    0x16EA7: "\U00016ec2",  # str.lower(): U+16EA7
    0x16EA8: "\U00016ec3",  # str.lower(): U+16EA8
    0x16EA9: "\U00016ec4",  # str.lower(): U+16EA9
    0x16EAA: "\U00016ec5",  # str.lower(): U+16EAA
    0x16EAB: "\U00016ec6",  # str.lower(): U+16EAB
    0x16EAC: "\U00016ec7",  # str.lower(): U+16EAC
    0x16EAD: "\U00016ec8",  # str.lower(): U+16EAD
    0x16EAE: "\U00016ec9",  # str.lower(): U+16EAE
    0x16EAF: "\U00016eca",  # str.lower(): U+16EAF
    0x16EB0: "\U00016ecb",  # str.lower(): U+16EB0
    0x16EB1: "\U00016ecc",  # str.lower(): U+16EB1
    0x16EB2: "\U00016ecd",  # str.lower(): U+16EB2
    0x16EB3: "\U00016ece",  # str.lower(): U+16EB3
    0x16EB4: "\U00016ecf",  # str.lower(): U+16EB4
    0x16EB5: "\U00016ed0",  # str.lower(): U+16EB5
    0x16EB6: "\U00016ed1",  # str.lower(): U+16EB6
    0x16EB7: "\U00016ed2",  # str.lower(): U+16EB7
    0x16EB8: "\U00016ed3",  # str.lower(): U+16EB8
}
