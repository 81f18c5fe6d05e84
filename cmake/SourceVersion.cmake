# Run at every build (cmake -P): writes the source version runs record into OUT, touching it only when it changed.
# A version read at configure time stayed what it was at the first configure: a tree pulled and rebuilt recorded the
# old commit, and calibration took runs of different code for runs of identical code.
#   -DSOURCE_DIR=... -DOUT=.../source_version.h [-DFIXED=...]
set(version "${FIXED}")  # -DGPUBENCH_SOURCE_VERSION, for a tree that is no git checkout
if(version STREQUAL "" AND EXISTS "${SOURCE_DIR}/.source-version")
  file(STRINGS "${SOURCE_DIR}/.source-version" version LIMIT_COUNT 1)
endif()
if(version STREQUAL "")
  execute_process(COMMAND git describe --always --dirty --abbrev=12 WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(version MATCHES "-dirty$")
  # Two trees dirty from one commit are not one code: the changes and the new files, hashed, tell them apart (a lent
  # GPU's copy of .git lagged the tree it built, so runs of three commits all said one commit -dirty).
  execute_process(COMMAND git diff HEAD --binary WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE content ERROR_QUIET)
  execute_process(COMMAND git ls-files --others --exclude-standard WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE untracked OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  string(REPLACE "\n" ";" untracked "${untracked}")
  foreach(path IN LISTS untracked)
    file(SHA1 "${SOURCE_DIR}/${path}" file_hash)
    string(APPEND content "${path} ${file_hash}\n")
  endforeach()
  string(SHA1 content_hash "${content}")
  string(SUBSTRING "${content_hash}" 0 12 content_hash)
  string(APPEND version "-${content_hash}")
endif()
if(version STREQUAL "")
  set(version "unknown")
endif()
string(REPLACE "\"" "" version "${version}")
set(text "// Generated at each build by cmake/SourceVersion.cmake: do not edit.\n#pragma once\n#define GPUBENCH_SOURCE_VERSION \"${version}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
