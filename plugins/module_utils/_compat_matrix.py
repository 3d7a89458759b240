"""The compatibility matrix of the vLLM Ascend stack, as data, each row with its source.

- RELEASES: every vllm-ascend release of vllm-ascend's versioning policy (its "Release
  compatibility matrix", copied row for row into POLICY_ROWS; a unit test compares them with the
  policy document), plus the post releases PyPI has beyond it (POST_RELEASES).
- DISAGREEMENTS: where another upstream source gives a release other values than the policy,
  both values with their sources, which one wins and why. The policy wins unless the release's
  own requirements (its wheel's Requires-Dist, built from the release tag) say otherwise.
- TORCH_NPU_CANN: torch_npu <-> PyTorch <-> CANN, from Ascend/pytorch's COMPATIBILITY page.
- CANN_DRIVERS and HDK_FIRMWARE: which NPU driver (Ascend HDK) each CANN pairs with, and the
  firmware of each HDK release, for 910B (Atlas A2) hardware.
- CHIPS: the NPU chips vllm-ascend supports, supports experimentally, or does not support.

Versions are written as their sources write them, without the `v` of tags: PEP 440 for Python
packages, Huawei's scheme for CANN, driver and firmware (see _versions). A driver pattern with a
trailing dot means the version and its patches (`25.5.` is any 25.5.x).
"""

from __future__ import annotations

# --- sources ----------------------------------------------------------------------------------

POLICY = ("https://github.com/vllm-project/vllm-ascend/blob/main/docs/source/community/"
          "versioning_policy.md (Release compatibility matrix)")
TORCH_NPU_ACTIVE = ("https://github.com/Ascend/pytorch/blob/HEAD/COMPATIBILITY.en.md "
                    "(TorchNPU version mapping table)")
TORCH_NPU_HISTORY = ("https://github.com/Ascend/pytorch/blob/HEAD/COMPATIBILITY.en.md "
                     "(TorchNPU version mapping table, historical versions including EOL)")
QUICK_INSTALL = ("https://ascend.github.io/docs/sources/ascend/quick_install.html (910b driver "
                 "and firmware per CANN version; data in "
                 "https://github.com/Ascend/docs/blob/HEAD/_static/package_info.js)")
DOMAIN_NOTES = ("ascend-fleet domain notes, ASCEND.md section 3 (Huawei quick-install data: "
                "8.5.x and 9.0.0 -> driver 25.5.x, 25.5.1 pairs with firmware 7.8.0.6.201)")
CANN_850_NOTES = ("https://github.com/hicann/release-management/blob/HEAD/8.5.0/release-notes.md "
                  "(version pairing: Ascend HDK 25.5.0); "
                  "https://docs.vllm.ai/projects/ascend/en/v0.13.0/installation.html "
                  "(Ascend HDK: 25.5 is recommended)")
CANN_900_NOTES = ("https://github.com/hicann/release-management/blob/HEAD/9.0.0/release-notes.md "
                  "and .../9.0.1/release-notes.md (CANN and Ascend HDK pairing)")
CANN_901_NOTES = ("https://github.com/hicann/release-management/blob/HEAD/9.0.1/release-notes.md "
                  "(CANN and Ascend HDK pairing)")
CANN_910_NOTES = ("https://github.com/hicann/release-management/blob/HEAD/9.1.0/release-notes.md "
                  "(pairing: Ascend HDK 26.1.0; compatible: 25.5.X, 26.0.RC1/25.7.RC1)")
HARDWARE = ("https://github.com/vllm-project/vllm-ascend/blob/main/README.md (Prerequisites, "
            "Hardware: Atlas 800I A2, A2 training, Atlas 800I A3, A3 training, Atlas 300I Duo "
            "experimental) and vllm-ascend's SoC name -> device type table")

# --- vllm-ascend releases ---------------------------------------------------------------------

RELEASE_FIELDS = (
    "vllm_ascend", "vllm", "python", "cann", "torch", "torch_npu", "triton_ascend", "mooncake",
)

# The policy's release table, in its order. `vllm` lists every vLLM the row names
# (`v0.10.1/v0.10.1.1`), the first being the one to install; N/A is None.
POLICY_ROWS = (
    ("0.23.0", ("0.23.0",), ">=3.10,<3.13", "9.1.0", "2.10.0", "2.10.0.post4", "3.2.2",
     "0.3.11.post1"),
    ("0.23.0rc1", ("0.23.0",), ">=3.10,<3.13", "9.0.1", "2.10.0", "2.10.0.post2", "3.2.1",
     "0.3.11.post1"),
    ("0.22.1rc1", ("0.22.1",), ">=3.10,<3.13", "9.0.0", "2.10.0", "2.10.0", "3.2.1", "0.3.9"),
    ("0.21.0rc1", ("0.21.0",), ">=3.10,<3.13", "9.0.0", "2.10.0", "2.10.0", "3.2.1", "0.3.9"),
    ("0.20.2rc1", ("0.20.2",), ">=3.10,<3.12", "9.0.0", "2.10.0", "2.10.0", "3.2.1",
     "0.3.8.post1"),
    ("0.19.1rc1", ("0.19.1",), ">=3.10,<3.12", "8.5.1", "2.9.0", "2.9.0", "3.2.0", "0.3.8.post1"),
    ("0.18.0", ("0.18.0",), ">=3.10,<3.12", "8.5.1", "2.9.0", "2.9.0.post1+git4c901a4",
     "3.2.0.dev20260322", "0.3.9"),
    ("0.18.0rc1", ("0.18.0",), ">=3.10,<3.12", "8.5.1", "2.9.0", "2.9.0", "3.2.0", None),
    ("0.17.0rc1", ("0.17.0",), ">=3.10,<3.12", "8.5.1", "2.9.0", "2.9.0", "3.2.0", None),
    ("0.16.0rc1", ("0.16.0",), ">=3.10,<3.12", "8.5.1", "2.9.0", "2.9.0", "3.2.0", None),
    ("0.15.0rc1", ("0.15.0",), ">=3.10,<3.12", "8.5.0", "2.9.0", "2.9.0", "3.2.0", None),
    ("0.14.0rc1", ("0.14.1",), ">=3.10,<3.12", "8.5.0", "2.9.0", "2.9.0", "3.2.0", None),
    ("0.13.0rc3", ("0.13.0",), ">=3.10,<3.12", "8.5.1", "2.8.0", "2.8.0.post2", "3.2.0", None),
    ("0.13.0", ("0.13.0",), ">=3.10,<3.12", "8.5.0", "2.8.0", "2.8.0.post2", "3.2.0", None),
    ("0.13.0rc2", ("0.13.0",), ">=3.10,<3.12", "8.5.0", "2.8.0", "2.8.0.post1", "3.2.0", None),
    ("0.13.0rc1", ("0.13.0",), ">=3.10,<3.12", "8.3.RC2", "2.8.0", "2.8.0", None, None),
    ("0.12.0rc1", ("0.12.0",), ">=3.10,<3.12", "8.3.RC2", "2.8.0", "2.8.0", None, None),
    ("0.11.0", ("0.11.0",), ">=3.9,<3.12", "8.3.RC2", "2.7.1", "2.7.1.post1", None, None),
    ("0.11.0rc3", ("0.11.0",), ">=3.9,<3.12", "8.3.RC2", "2.7.1", "2.7.1.post1", None, None),
    ("0.11.0rc2", ("0.11.0",), ">=3.9,<3.12", "8.3.RC2", "2.7.1", "2.7.1", None, None),
    ("0.11.0rc1", ("0.11.0",), ">=3.9,<3.12", "8.3.RC1", "2.7.1", "2.7.1", None, None),
    ("0.11.0rc0", ("0.11.0rc3",), ">=3.9,<3.12", "8.2.RC1", "2.7.1", "2.7.1.dev20250724", None,
     None),
    ("0.10.2rc1", ("0.10.2",), ">=3.9,<3.12", "8.2.RC1", "2.7.1", "2.7.1.dev20250724", None,
     None),
    ("0.10.1rc1", ("0.10.1", "0.10.1.1"), ">=3.9,<3.12", "8.2.RC1", "2.7.1", "2.7.1.dev20250724",
     None, None),
    ("0.10.0rc1", ("0.10.0",), ">=3.9,<3.12", "8.2.RC1", "2.7.1", "2.7.1.dev20250724", None,
     None),
    ("0.9.2rc1", ("0.9.2",), ">=3.9,<3.12", "8.1.RC1", "2.5.1", "2.5.1.post1.dev20250619", None,
     None),
    ("0.9.1", ("0.9.1",), ">=3.9,<3.12", "8.2.RC1", "2.5.1", "2.5.1.post1", None, None),
    ("0.9.1rc3", ("0.9.1",), ">=3.9,<3.12", "8.2.RC1", "2.5.1", "2.5.1.post1", None, None),
    ("0.9.1rc2", ("0.9.1",), ">=3.9,<3.12", "8.2.RC1", "2.5.1", "2.5.1.post1", None, None),
    ("0.9.1rc1", ("0.9.1",), ">=3.9,<3.12", "8.1.RC1", "2.5.1", "2.5.1.post1.dev20250528", None,
     None),
    ("0.9.0rc2", ("0.9.0",), ">=3.9,<3.12", "8.1.RC1", "2.5.1", "2.5.1", None, None),
    ("0.9.0rc1", ("0.9.0",), ">=3.9,<3.12", "8.1.RC1", "2.5.1", "2.5.1", None, None),
    ("0.8.5rc1", ("0.8.5.post1",), ">=3.9,<3.12", "8.1.RC1", "2.5.1", "2.5.1", None, None),
    ("0.8.4rc2", ("0.8.4",), ">=3.9,<3.12", "8.0.0", "2.5.1", "2.5.1", None, None),
    ("0.7.3.post1", ("0.7.3",), ">=3.9,<3.12", "8.1.RC1", "2.5.1", "2.5.1", None, None),
    ("0.7.3", ("0.7.3",), ">=3.9,<3.12", "8.1.RC1", "2.5.1", "2.5.1", None, None),
)

# Post releases on PyPI that the policy's table does not list. The policy makes a post release
# a patch of its final release, so what its wheel does not say comes from that release's row.
POST_RELEASES = (
    {
        "vllm_ascend": "0.23.0.post1",
        "vllm": ("0.23.0",),
        "python": ">=3.10,<3.13",
        "cann": "9.1.0",
        "torch": "2.10.0",
        "torch_npu": "2.10.0.post4",
        "triton_ascend": "3.2.2",
        "mooncake": "0.3.11.post1",
        "source": "PyPI vllm-ascend 0.23.0.post1 Requires-Dist (torch==2.10.0, "
                  "torch-npu==2.10.0.post4, triton-ascend==3.2.2); vllm, Python, CANN and "
                  "Mooncake from the v0.23.0 row of " + POLICY + " (a post release is a patch "
                  "of its final release)",
    },
)

RELEASES = tuple(
    dict(zip(RELEASE_FIELDS, row), source=POLICY) for row in POLICY_ROWS
) + POST_RELEASES

# Values other sources give for a release where the policy says otherwise. `value` is the other
# source's; `wins` tells whether it replaces the policy's value in the resolved release. Both
# values are upstream's word for the release, so a host with either passes the check.
DISAGREEMENTS = (
    {
        "vllm_ascend": "0.18.0",
        "field": "torch_npu",
        "value": "2.9.0",
        "source": "PyPI vllm-ascend 0.18.0 wheel Requires-Dist torch-npu==2.9.0 (built from the "
                  "v0.18.0 tag's requirements)",
        "wins": True,
        "why": "the release's own requirements pin torch-npu 2.9.0 and pip installs exactly that; "
               "the policy's 2.9.0.post1+git4c901a4 is a local build that no index can serve",
    },
    {
        "vllm_ascend": "0.18.0",
        "field": "triton_ascend",
        "value": "3.2.0",
        "source": "PyPI vllm-ascend 0.18.0 wheel Requires-Dist triton-ascend==3.2.0 (built from "
                  "the v0.18.0 tag's requirements)",
        "wins": True,
        "why": "the release's own requirements pin triton-ascend 3.2.0; the policy's "
               "3.2.0.dev20260322 is a nightly build",
    },
    {
        "vllm_ascend": "0.11.0",
        "field": "torch_npu",
        "value": "2.7.1",
        "source": "PyPI vllm-ascend 0.11.0 wheel Requires-Dist torch-npu==2.7.1 (built from the "
                  "v0.11.0 tag's requirements)",
        "wins": True,
        "why": "the release's own requirements pin torch-npu 2.7.1 and pip installs exactly that; "
               "the policy and https://docs.vllm.ai/projects/ascend/en/v0.11.0/installation.html "
               "say 2.7.1.post1",
    },
    {
        "vllm_ascend": "0.13.0",
        "field": "torch_npu",
        "value": "2.8.0",
        "source": "https://docs.vllm.ai/projects/ascend/en/v0.13.0/installation.html "
                  "(Requirements: torch-npu == 2.8.0)",
        "wins": False,
        "why": "the policy's 2.8.0.post2 is also what the v0.13.0 wheel's Requires-Dist pins",
    },
)

# --- torch_npu <-> PyTorch <-> CANN -----------------------------------------------------------

# (torch_npu, PyTorch, CANN, source), in the page's order; `(beta)` marks are dropped.
TORCH_NPU_CANN = (
    ("2.12.0", "2.12.0", "9.1.0", TORCH_NPU_ACTIVE),
    ("2.11.0", "2.11.0", "9.1.0", TORCH_NPU_ACTIVE),
    ("2.10.0.post4", "2.10.0", "9.1.0", TORCH_NPU_ACTIVE),
    ("2.9.0.post6", "2.9.0", "9.1.0", TORCH_NPU_ACTIVE),
    ("2.7.1.post8", "2.7.1", "9.1.0", TORCH_NPU_ACTIVE),
    ("2.9.0.post2", "2.9.0", "9.0.0", TORCH_NPU_ACTIVE),
    ("2.8.0.post4", "2.8.0", "9.0.0", TORCH_NPU_ACTIVE),
    ("2.7.1.post4", "2.7.1", "9.0.0", TORCH_NPU_ACTIVE),
    ("2.9.0", "2.9.0", "8.5.0", TORCH_NPU_ACTIVE),
    ("2.8.0.post2", "2.8.0", "8.5.0", TORCH_NPU_ACTIVE),
    ("2.7.1.post2", "2.7.1", "8.5.0", TORCH_NPU_ACTIVE),
    ("2.6.0.post5", "2.6.0", "8.5.0", TORCH_NPU_ACTIVE),
    ("2.8.0", "2.8.0", "8.3.RC1", TORCH_NPU_ACTIVE),
    ("2.7.1", "2.7.1", "8.3.RC1", TORCH_NPU_ACTIVE),
    ("2.6.0.post3", "2.6.0", "8.3.RC1", TORCH_NPU_ACTIVE),
    ("2.1.0.post17", "2.1.0", "8.3.RC1", TORCH_NPU_ACTIVE),
    ("2.6.0", "2.6.0", "8.2.RC1", TORCH_NPU_ACTIVE),
    ("2.5.1.post1", "2.5.1", "8.2.RC1", TORCH_NPU_ACTIVE),
    ("2.1.0.post13", "2.1.0", "8.2.RC1", TORCH_NPU_ACTIVE),
    ("2.5.1", "2.5.1", "8.1.RC1", TORCH_NPU_ACTIVE),
    ("2.4.0.post4", "2.4.0", "8.1.RC1", TORCH_NPU_ACTIVE),
    ("2.3.1.post6", "2.3.1", "8.1.RC1", TORCH_NPU_ACTIVE),
    ("2.1.0.post12", "2.1.0", "8.1.RC1", TORCH_NPU_ACTIVE),
    ("2.4.0.post2", "2.4.0", "8.0.0", TORCH_NPU_ACTIVE),
    ("2.3.1.post4", "2.3.1", "8.0.0", TORCH_NPU_ACTIVE),
    ("2.1.0.post10", "2.1.0", "8.0.0", TORCH_NPU_ACTIVE),
    ("2.4.0", "2.4.0", "8.0.RC3", TORCH_NPU_HISTORY),
    ("2.3.1.post2", "2.3.1", "8.0.RC3", TORCH_NPU_HISTORY),
    ("2.1.0.post8", "2.1.0", "8.0.RC3", TORCH_NPU_HISTORY),
    ("2.3.1", "2.3.1", "8.0.RC2", TORCH_NPU_HISTORY),
    ("2.2.0.post2", "2.2.0", "8.0.RC2", TORCH_NPU_HISTORY),
    ("2.1.0.post6", "2.1.0", "8.0.RC2", TORCH_NPU_HISTORY),
    ("1.11.0.post14", "1.11.0", "8.0.RC2", TORCH_NPU_HISTORY),
    ("2.2.0", "2.2.0", "8.0.RC1", TORCH_NPU_HISTORY),
    ("2.1.0.post4", "2.1.0", "8.0.RC1", TORCH_NPU_HISTORY),
    ("1.11.0.post11", "1.11.0", "8.0.RC1", TORCH_NPU_HISTORY),
    ("2.1.0", "2.1.0", "7.0.0", TORCH_NPU_HISTORY),
    ("2.0.1.post1", "2.0.1", "7.0.0", TORCH_NPU_HISTORY),
    ("1.11.0.post8", "1.11.0", "7.0.0", TORCH_NPU_HISTORY),
    ("2.1.0.rc1", "2.1.0", "7.0.RC1", TORCH_NPU_HISTORY),
    ("2.0.1", "2.0.1", "7.0.RC1", TORCH_NPU_HISTORY),
    ("1.11.0.post4", "1.11.0", "7.0.RC1", TORCH_NPU_HISTORY),
    ("1.11.0.post3", "1.11.0", "6.3.RC3.1", TORCH_NPU_HISTORY),
    ("1.11.0.post2", "1.11.0", "6.3.RC3", TORCH_NPU_HISTORY),
    ("2.0.1.rc1", "2.0.1", "6.3.RC2", TORCH_NPU_HISTORY),
    ("1.11.0.post1", "1.11.0", "6.3.RC2", TORCH_NPU_HISTORY),
    ("1.8.1.post2", "1.8.1", "6.3.RC2", TORCH_NPU_HISTORY),
    ("1.11.0", "1.11.0", "6.3.RC1", TORCH_NPU_HISTORY),
    ("1.8.1.post1", "1.8.1", "6.3.RC1", TORCH_NPU_HISTORY),
    ("1.5.0.post8", "1.5.0", "6.0.1", TORCH_NPU_HISTORY),
    ("1.8.1", "1.8.1", "6.0.1", TORCH_NPU_HISTORY),
    ("1.11.0.rc2", "1.11.0", "6.0.1", TORCH_NPU_HISTORY),
    ("1.5.0.post7", "1.5.0", "6.0.RC1", TORCH_NPU_HISTORY),
    ("1.8.1.rc3", "1.8.1", "6.0.RC1", TORCH_NPU_HISTORY),
    ("1.11.0.rc1", "1.11.0", "6.0.RC1", TORCH_NPU_HISTORY),
    ("1.5.0.post6", "1.5.0", "5.1.RC2", TORCH_NPU_HISTORY),
    ("1.8.1.rc2", "1.8.1", "5.1.RC2", TORCH_NPU_HISTORY),
    ("1.5.0.post5", "1.5.0", "5.1.RC1", TORCH_NPU_HISTORY),
    ("1.8.1.rc1", "1.8.1", "5.1.RC1", TORCH_NPU_HISTORY),
    ("1.5.0.post4", "1.5.0", "5.0.4", TORCH_NPU_HISTORY),
    ("1.5.0.post3", "1.8.1", "5.0.3", TORCH_NPU_HISTORY),
    ("1.5.0.post2", "1.5.0", "5.0.2", TORCH_NPU_HISTORY),
)

# --- CANN <-> NPU driver and firmware (910B) --------------------------------------------------

# (CANN, driver patterns, source): the drivers each CANN pairs with, the one its source names
# first. A driver older than all of them is too old for that CANN. Release candidates take their
# patches and builds (24.1.rc2.2, 24.1.rc1.b030: drivers in the field).
CANN_DRIVERS = (
    ("7.0.RC1", ("23.0.rc3.",), QUICK_INSTALL),
    ("7.0.0", ("23.0.3",), QUICK_INSTALL),
    ("7.0.1", ("23.0.3",), QUICK_INSTALL),
    ("8.0.RC1", ("24.1.rc1.",), QUICK_INSTALL),
    ("8.0.RC2", ("24.1.rc1.",), QUICK_INSTALL),
    ("8.0.RC3", ("24.1.rc2.",), QUICK_INSTALL),
    ("8.0.0", ("24.1.rc2.",), QUICK_INSTALL),
    ("8.1.RC1", ("24.1.rc2.",), QUICK_INSTALL),
    ("8.2.RC1", ("25.0.rc1.",), QUICK_INSTALL),
    ("8.5.0", ("25.5.",), CANN_850_NOTES),
    ("8.5.1", ("25.5.",), DOMAIN_NOTES),
    ("8.5.2", ("25.5.1", "25.5.2", "26.0.rc1."), CANN_900_NOTES),
    ("9.0.0", ("25.5.1", "25.5.2", "26.0.rc1.", "26.1.0"), CANN_900_NOTES),
    ("9.0.1", ("26.0.rc3.", "25.5.1", "25.5.2", "25.5.5", "26.0.rc1."), CANN_901_NOTES),
    ("9.1.0", ("26.1.0", "25.5.", "25.7.rc1.", "26.0.rc1."), CANN_910_NOTES),
)

# (driver pattern, firmware, source): the firmware of the same Ascend HDK release.
HDK_FIRMWARE = (
    ("23.0.rc3.", "6.4.0.4.220", QUICK_INSTALL),
    ("23.0.3", "7.1.0.5.220", QUICK_INSTALL),
    ("24.1.rc1.", "7.1.0.6.220", QUICK_INSTALL),
    ("24.1.rc2.", "7.3.0.1.231", QUICK_INSTALL),
    ("25.0.rc1.", "7.7.0.1.231", QUICK_INSTALL),
    ("25.5.1", "7.8.0.6.201", DOMAIN_NOTES),
)

# --- chips ------------------------------------------------------------------------------------

# Chip names as npu-smi prints them (without an `Ascend` prefix). On Atlas A3, `npu-smi info`
# names every chip `Ascend910`; the SoC names (910_9391, ...) are what the CANN runtime reports.
CHIPS = (
    {
        "family": "Atlas A2 (Ascend 910B)",
        "support": "supported",
        "names": ("910B1", "910B2", "910B2C", "910B3", "910B4", "910B4-1"),
        "source": HARDWARE,
    },
    {
        "family": "Atlas A3 (Ascend 910C)",
        "support": "supported",
        "names": ("910", "910_9391", "910_9392", "910_9381", "910_9382", "910_9372", "910_9362"),
        "source": HARDWARE,
    },
    {
        "family": "Atlas 300I Duo (Ascend 310P)",
        "support": "experimental",
        "names": ("310P1", "310P3", "310P5", "310P7"),
        "source": HARDWARE,
    },
    {
        "family": "first-generation Ascend 910 (Atlas 800 training servers 9000/9010)",
        "support": "unsupported",
        "names": ("910A", "910B", "910ProA", "910ProB", "910PremiumA"),
        "source": HARDWARE,
    },
)
