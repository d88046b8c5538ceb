# test_inspect_page runs chromium-headless-shell on the inspector's page
# (tests/inspect/test_inspect_page.c). Without a browser it exits 77: a skip,
# except under CI=true, where it fails (`make deps` installs the browser).
# CI and ZENGINE_CHROMIUM reach it from ctest's own environment (inherited,
# not frozen here at configure time). Its hang deadlines (30 s for the
# browser, 50 s for the run) stay under the TIMEOUT.
if(TEST test_inspect_page)
  set_tests_properties(test_inspect_page PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
