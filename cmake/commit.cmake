# Writes OUT, the header that names the commit of SRC's HEAD
# (FLIPGRAPH_GIT_COMMIT: `flipgraph version`, the banners, the run records).
# Run at every build (CMakeLists.txt, target fg_commit): a value taken when
# CMake configured goes stale as soon as a build follows a new commit without
# a new configure, and the run records would name the wrong commit.  The file
# is rewritten only when the commit changed, so a build at the same commit
# recompiles nothing.
#   cmake -DSRC=DIR -DOUT=FILE -P cmake/commit.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY "${SRC}"
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT commit)
  set(commit "unknown")
else()
  # A build from a tree with uncommitted changes to tracked files (a device
  # call sends the working tree, not a commit) must not name HEAD as if it
  # were that tree: the run records would point at code that did not run.
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY "${SRC}"
                  RESULT_VARIABLE dirty ERROR_QUIET)
  if(dirty EQUAL 1)
    set(commit "${commit}+dirty")
  endif()
endif()
set(text "#define FLIPGRAPH_GIT_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
