#!/bin/sh
# Bazel's --workspace_status_command (.bazelrc): the git revision that `pyunwind version` shows
# (packaging/BUILD, build_info). Outside a git checkout (a source tarball) it says "unknown";
# "-dirty" when the tree has uncommitted changes.
revision=$(git rev-parse HEAD 2>/dev/null) || revision=unknown
if [ "$revision" != unknown ] && ! git diff --quiet HEAD -- 2>/dev/null; then
  revision="$revision-dirty"
fi
echo "STABLE_PYUNWIND_GIT_REVISION $revision"
