"""Where each mergerfs create policy sends a new file in the tiered pool, and why.

Apart from the rules: this is knowledge of mergerfs's policies (from its manual), not a
check of a layout; the create-policy rule reads it.
"""

from __future__ import annotations

from .model import CreatePolicy

# Why each policy does or does not send new files to the cache first, in the tiered
# pool, whose branch list is the cache branches then the slow ones.
CACHE_FIRST = {
    CreatePolicy.FF: "ff takes the first branch in order with minfreespace free: the cache",
    CreatePolicy.ALL: "all creates files like ff: the first branch in order, the cache",
}
SOMETIMES_CACHE = {
    CreatePolicy.LFS: "lfs picks the branch with the least free space: the cache only while "
    "every slow branch has more free space than it",
    CreatePolicy.LUS: "lus picks the branch with the least used space: the cache only while "
    "every slow branch holds more than it",
    CreatePolicy.MSPLFS: "msplfs is eplfs walking up to a folder that exists: least free "
    "space among branches holding the folder, so the cache only while it has the least",
    CreatePolicy.MSPLUS: "msplus is eplus walking up to a folder that exists: least used "
    "space among branches holding the folder, so the cache only while it has the least",
    CreatePolicy.EPFF: "epff takes the first branch holding the file's folder: the cache "
    "only while the folder still exists there (a mover that prunes empty folders ends it)",
    CreatePolicy.EPALL: "epall creates files like epff: the cache only while the folder "
    "still exists there",
}
NEVER_CACHE = {
    CreatePolicy.MFS: "mfs picks the branch with the most free space: the big slow disks",
    CreatePolicy.EPMFS: "epmfs picks, among branches holding the folder, the most free "
    "space: a slow disk",
    CreatePolicy.MSPMFS: "mspmfs picks the most free space among branches holding the "
    "nearest folder: a slow disk",
    CreatePolicy.EPLFS: "eplfs limits itself to branches holding the file's folder; once "
    "the mover has moved a folder's files, that is often only the slow tier",
    CreatePolicy.EPLUS: "eplus picks, among branches holding the folder, the least used: "
    "files follow their folder to the slow tier, not to the cache",
    CreatePolicy.PFRD: "pfrd picks at random weighted by free space: mostly the slow disks",
    CreatePolicy.EPPFRD: "eppfrd picks at random weighted by free space: mostly the slow disks",
    CreatePolicy.MSPPFRD: "msppfrd picks at random weighted by free space: mostly slow disks",
    CreatePolicy.RAND: "rand picks any branch at random, slow ones included",
    CreatePolicy.EPRAND: "eprand picks any branch holding the folder at random",
    CreatePolicy.NEWEST: "newest picks the branch with the newest folder, whichever tier",
    CreatePolicy.EROFS: "erofs refuses every new file (read-only filesystem error)",
}


def create_policy_why(policy: CreatePolicy) -> str:
    """Why ``policy`` does or does not send new files to the cache first."""
    return {**CACHE_FIRST, **SOMETIMES_CACHE, **NEVER_CACHE}[policy]
