"""Version ordering for the Ascend stack.

Two schemes meet in one stack:

- Huawei's own, for CANN (`8.0.RC3`, `8.5.0`, `9.0.0-beta.1`) and the HDK driver and firmware
  (`24.1.rc2.2`, `7.1.0.11.220`): AscendVersion orders them, matches() and below() read the
  patterns the compatibility data uses (a trailing dot means "any patch of": `25.5.` is every
  25.5.x), and AscendRange reads the `compatible_version_fw=[7.0.0,7.2.99]` /
  `compatible_version_drv=[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]` ranges of version.info files.
- PEP 440, for Python packages and Python itself, through the `packaging` library: public()
  drops the local part (`0.22.1+empty` is vLLM 0.22.1, `2.9.0.post1+git4c901a4` is torch_npu
  2.9.0.post1) and in_specifier() tests `>=3.10,<3.13`.

The Huawei scheme is standard library only. `packaging` is imported when present: it is on the
controller (requirements.txt) but a managed node may lack it, which is why stack_compat is meant
to run with `delegate_to: localhost`; without it the PEP 440 helpers raise MissingPackaging,
naming the fix.
"""

from __future__ import annotations

import functools
import re
import traceback

try:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version
except ImportError:
    PACKAGING_IMPORT_ERROR = traceback.format_exc()
else:
    PACKAGING_IMPORT_ERROR = None

__all__ = [
    "PACKAGING_IMPORT_ERROR",
    "AscendRange",
    "AscendVersion",
    "MissingPackaging",
    "VersionError",
    "at_most",
    "below",
    "display",
    "floor_key",
    "in_specifier",
    "matches",
    "neighbours",
    "pep440",
    "public",
]

# One dot-separated token: a number, a release candidate (rc3, RC3), an alpha/beta build
# (alpha003, beta1, alpha), or a build number (b030, as in the driver version 24.1.rc1.b030).
_TOKEN = re.compile(r"^(?:(\d+)|rc(\d+)|(alpha|beta)(\d*)|b(\d+))$")
# `9.0.0-beta.1` (hicann's spelling) is 9.0.0.beta1.
_DASHED_PRE = re.compile(r"(alpha|beta)\.(\d+)")
# `[lo,hi]` groups of a compatible_version_* value, joined by commas.
_RANGE_GROUP = re.compile(r"\[([^\[\]]*)\]")
_RANGES = re.compile(r"^\s*\[[^\[\]]*\](?:\s*,\s*\[[^\[\]]*\])*\s*$")
_BUILD = re.compile(r"^b\d+$")
_PRE_RANK = {"alpha": 0, "beta": 1}
_FINAL = (2, 0)


class VersionError(ValueError):
    """A version, pattern or range that cannot be read."""


class MissingPackaging(VersionError):
    """The `packaging` library is not importable where the code runs."""


def _tokens(text):
    """The normalised tokens of a Huawei version or pattern (lowercase, no leading zeros)."""
    normalised = _DASHED_PRE.sub(r"\1\2", str(text).strip().lower().replace("-", "."))
    tokens = []
    for token in normalised.split("."):
        match = _TOKEN.match(token)
        if not match:
            raise VersionError(f"{text!r} is not an Ascend version (like 8.0.RC3, 8.5.0, "
                               f"24.1.rc2.2 or 7.1.0.11.220)")
        number, rc, pre, pre_number, build = match.groups()
        if number is not None:
            tokens.append(str(int(number)))
        elif rc is not None:
            tokens.append(f"rc{int(rc)}")
        elif build is not None:
            tokens.append(f"b{int(build)}")
        else:
            tokens.append(f"{pre}{int(pre_number or 0)}")
    return tokens


def _key(tokens, text):
    """The sort key of a full version's tokens (see AscendVersion)."""
    if len(tokens) < 3 or not (tokens[0].isdigit() and tokens[1].isdigit()):
        raise VersionError(f"{text!r} is not an Ascend version: it needs MAJOR.MINOR.(RCn|PATCH)")
    pre, build = _FINAL, 0
    rest = tokens[3:]
    if rest and _BUILD.match(rest[-1]):
        build = int(rest[-1][1:])
        rest = rest[:-1]
    if rest and rest[-1].startswith(("alpha", "beta")):
        kind = "alpha" if rest[-1].startswith("alpha") else "beta"
        pre = (_PRE_RANK[kind], int(rest[-1][len(kind):]))
        rest = rest[:-1]
    if not all(token.isdigit() for token in rest):
        raise VersionError(f"{text!r} is not an Ascend version: after MAJOR.MINOR.(RCn|PATCH) "
                           "only numbers, then one alpha/beta, then one build (b030) may follow")
    third = tokens[2]
    if third.startswith("rc"):
        stage = (0, int(third[2:]))
    elif third.isdigit():
        stage = (1, int(third))
    else:
        raise VersionError(f"{text!r} is not an Ascend version: its third part must be RCn or a "
                           "number")
    return (int(tokens[0]), int(tokens[1]), *stage, tuple(int(t) for t in rest), pre, build)


@functools.total_ordering
class AscendVersion:
    """A CANN, HDK driver or firmware version in Huawei's scheme, comparable.

    MAJOR.MINOR.(RCn|PATCH)[.N...][.alphaN|.betaN][.bN]:

    - release candidates come before the releases of their MAJOR.MINOR:
      8.0.RC1 < 8.0.RC3 < 8.0.0 < 8.1.RC1 < 8.3.RC2 < 8.5.0 < 8.5.1 < 9.0.0;
    - further numbers are patches: 24.1.rc2 < 24.1.rc2.2 < 24.1.0 < 25.0.rc1 < 25.0.rc1.1;
    - an alpha or beta build comes before the version it leads to:
      8.0.RC3.alpha003 < 8.0.RC3.beta1 < 8.0.RC3, and 9.0.0-beta.1 is 9.0.0.beta1;
    - a build number comes last and orders builds of one version, before its patches:
      24.1.rc1 < 24.1.rc1.b030 < 24.1.rc1.1;
    - firmware versions are all numbers: 7.1.0.11.220 < 7.8.0.6.201.

    Case does not matter (RC2 == rc2). str() gives the text as written.
    """

    __slots__ = ("key", "text", "tokens")

    def __init__(self, text):
        self.text = str(text).strip()
        self.tokens = tuple(_tokens(self.text))
        self.key = _key(self.tokens, self.text)

    def __eq__(self, other):
        if not isinstance(other, AscendVersion):
            return NotImplemented
        return self.key == other.key

    def __lt__(self, other):
        if not isinstance(other, AscendVersion):
            return NotImplemented
        return self.key < other.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return f"AscendVersion({self.text!r})"

    def __str__(self):
        return self.text


def _as_version(value):
    """An AscendVersion from a string or an AscendVersion."""
    return value if isinstance(value, AscendVersion) else AscendVersion(value)


def _pattern(pattern):
    """A version pattern read: (AscendVersion, False), or (prefix tokens, True) for `25.5.`."""
    text = str(pattern).strip()
    if not text.endswith("."):
        return AscendVersion(text), False
    prefix = tuple(_tokens(text[:-1]))
    if len(prefix) < 2 or not (prefix[0].isdigit() and prefix[1].isdigit()):
        raise VersionError(f"{text!r} is not a version pattern: it needs MAJOR.MINOR. at least")
    return prefix, True


def matches(version, pattern):
    """Whether `version` is `pattern`: equal, or with a trailing dot, equal or a patch of it.

    `24.1.rc2.` matches 24.1.rc2 and 24.1.rc2.2; `25.5.` matches every 25.5.x.
    """
    version = _as_version(version)
    value, is_prefix = _pattern(pattern)
    if is_prefix:
        return version.tokens[:len(value)] == value
    return version == value


def floor_key(pattern):
    """A sort key below or at every version `pattern` matches, to order patterns by their lowest.

    `25.5.` sorts before 25.5.0 (and its release candidates); `24.1.rc2.` at 24.1.rc2.
    """
    value, is_prefix = _pattern(pattern)
    if not is_prefix:
        return value.key
    if len(value) == 2:
        return (int(value[0]), int(value[1]))
    return AscendVersion(".".join(value)).key


def below(version, pattern):
    """Whether `version` sorts before every version that `pattern` matches (see matches())."""
    version = _as_version(version)
    return version.key < floor_key(pattern) and not matches(version, pattern)


def at_most(version, pattern):
    """Whether `version` sorts before `pattern` or is matched by it (a range's high bound)."""
    return matches(version, pattern) or below(version, pattern)


def display(pattern):
    """A pattern for people: `25.5.` reads 25.5.x, `24.1.rc2.` reads 24.1.rc2.x."""
    pattern = str(pattern).strip()
    return pattern + "x" if pattern.endswith(".") else pattern


class AscendRange:
    """A `compatible_version_fw` / `compatible_version_drv` value of an HDK version.info file.

    One or more `[low,high]` groups, bounds included; a high bound with a trailing dot also takes
    its patches (`[23.0.rc3,23.0.rc3.]` is 23.0.rc3 and every 23.0.rc3.N). A group with one
    version is that version (with a trailing dot, its patches too).
    """

    def __init__(self, text):
        self.text = str(text).strip()
        if not _RANGES.match(self.text):
            raise VersionError(f"{self.text!r} is not a version range like [7.0.0,7.2.99] or "
                               "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]")
        self.groups = []
        for group in _RANGE_GROUP.findall(self.text):
            bounds = [bound.strip() for bound in group.split(",")]
            if len(bounds) == 1:
                bounds *= 2
            if len(bounds) != 2 or not all(bounds):
                raise VersionError(f"{self.text!r} is not a version range: [{group}] needs one "
                                   "version or two, low and high")
            _pattern(bounds[1])  # raises VersionError when the high bound is not a version
            self.groups.append((AscendVersion(bounds[0].rstrip(".")), bounds[1]))

    def __contains__(self, version):
        version = _as_version(version)
        return any(low <= version and at_most(version, high) for low, high in self.groups)

    def __str__(self):
        return self.text


def neighbours(target, known, count=3):
    """The `count` known values just below `target` and the `count` just above, in order.

    `known` holds comparable values (AscendVersion, packaging Version); `target` is one too.
    """
    ordered = sorted(set(known))
    lower = [value for value in ordered if value < target][-count:]
    higher = [value for value in ordered if value > target][:count]
    return lower, higher


def _require_packaging():
    """Raise MissingPackaging when `packaging` could not be imported."""
    if PACKAGING_IMPORT_ERROR is not None:
        raise MissingPackaging(
            "the Python library 'packaging' is missing for the interpreter that runs this "
            "module: install it there (python3-packaging), or run the task on the controller, "
            "which has it (delegate_to: localhost)"
        )


def pep440(text):
    """A packaging Version from `text` (PEP 440), or VersionError naming the value."""
    _require_packaging()
    try:
        return Version(str(text).strip())
    except InvalidVersion:
        raise VersionError(f"{text!r} is not a PEP 440 version (like 0.23.0, 2.9.0.post1 or "
                           "0.22.1+empty)") from None


def public(text):
    """The public part of a PEP 440 version: `0.22.1+empty` -> 0.22.1 (a packaging Version)."""
    return pep440(pep440(text).public)


def in_specifier(version, specifier):
    """Whether the PEP 440 `version` satisfies `specifier` (like `>=3.10,<3.13`)."""
    _require_packaging()
    try:
        specifiers = SpecifierSet(specifier)
    except InvalidSpecifier:
        raise VersionError(f"{specifier!r} is not a PEP 440 version specifier") from None
    return specifiers.contains(public(version), prereleases=True)
