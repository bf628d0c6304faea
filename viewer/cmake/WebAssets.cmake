# Builds the front end (viewer/web) with npm into the build tree and turns
# the result into a C++ source (ORRERY_VIEWER_ASSETS_CPP) that embeds every
# file. With ORRERY_BUILD_VIEWER_FRONTEND=OFF the binary embeds a one-line
# page saying so. The npm work happens in a copy under the build directory,
# so the source tree never gets a node_modules.
set(ORRERY_VIEWER_WEB_SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/web)
set(ORRERY_VIEWER_WEB_WORK ${CMAKE_CURRENT_BINARY_DIR}/web)
set(ORRERY_VIEWER_WEB_DIST ${CMAKE_CURRENT_BINARY_DIR}/web-dist)
set(ORRERY_VIEWER_NODE_MODULES ${ORRERY_VIEWER_WEB_WORK}/node_modules
    CACHE INTERNAL "node_modules of the viewer front end (playwright-core for the browser tests)")
set(ORRERY_VIEWER_ASSETS_CPP ${CMAKE_CURRENT_BINARY_DIR}/web_assets.cpp)
set(embed_script ${CMAKE_CURRENT_SOURCE_DIR}/cmake/embed_assets.cmake)

set(ORRERY_VIEWER_FRONTEND_BUILT OFF)
if(ORRERY_BUILD_VIEWER_FRONTEND)
  find_program(ORRERY_NPM npm)
  find_program(ORRERY_NODE node)
  if(ORRERY_NPM AND ORRERY_NODE)
    set(ORRERY_VIEWER_FRONTEND_BUILT ON)
  else()
    message(WARNING "viewer: node/npm not found; `orrery view` will serve a page saying the "
                    "front end was not built (scripts/install-deps.sh installs them)")
  endif()
endif()
set(ORRERY_VIEWER_FRONTEND_BUILT ${ORRERY_VIEWER_FRONTEND_BUILT}
    CACHE INTERNAL "whether the viewer's npm front end is built into the binary")

if(ORRERY_VIEWER_FRONTEND_BUILT)
  file(MAKE_DIRECTORY ${ORRERY_VIEWER_WEB_WORK})
  file(GLOB_RECURSE web_sources CONFIGURE_DEPENDS
    ${ORRERY_VIEWER_WEB_SOURCE}/src/*
    ${ORRERY_VIEWER_WEB_SOURCE}/index.html
    ${ORRERY_VIEWER_WEB_SOURCE}/vite.config.js)
  set(npm_stamp ${ORRERY_VIEWER_WEB_WORK}/npm-ci.stamp)
  add_custom_command(OUTPUT ${npm_stamp}
    COMMAND ${CMAKE_COMMAND} -E copy
      ${ORRERY_VIEWER_WEB_SOURCE}/package.json ${ORRERY_VIEWER_WEB_SOURCE}/package-lock.json
      ${ORRERY_VIEWER_WEB_WORK}/
    COMMAND ${ORRERY_NPM} ci --no-audit --no-fund --loglevel=error
    COMMAND ${CMAKE_COMMAND} -E touch ${npm_stamp}
    WORKING_DIRECTORY ${ORRERY_VIEWER_WEB_WORK}
    DEPENDS ${ORRERY_VIEWER_WEB_SOURCE}/package.json ${ORRERY_VIEWER_WEB_SOURCE}/package-lock.json
    COMMENT "viewer: npm ci (front-end dependencies)"
    VERBATIM)
  add_custom_command(OUTPUT ${ORRERY_VIEWER_ASSETS_CPP}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${ORRERY_VIEWER_WEB_WORK}/src ${ORRERY_VIEWER_WEB_DIST}
    COMMAND ${CMAKE_COMMAND} -E copy_directory ${ORRERY_VIEWER_WEB_SOURCE}/src
      ${ORRERY_VIEWER_WEB_WORK}/src
    COMMAND ${CMAKE_COMMAND} -E copy ${ORRERY_VIEWER_WEB_SOURCE}/index.html
      ${ORRERY_VIEWER_WEB_SOURCE}/vite.config.js ${ORRERY_VIEWER_WEB_WORK}/
    COMMAND ${ORRERY_NODE} node_modules/vite/bin/vite.js build --logLevel warn --emptyOutDir
      --outDir ${ORRERY_VIEWER_WEB_DIST}
    COMMAND ${CMAKE_COMMAND} -DDIST=${ORRERY_VIEWER_WEB_DIST} -DOUT=${ORRERY_VIEWER_ASSETS_CPP}
      -P ${embed_script}
    WORKING_DIRECTORY ${ORRERY_VIEWER_WEB_WORK}
    DEPENDS ${npm_stamp} ${web_sources} ${embed_script}
    COMMENT "viewer: vite build and embed the front end"
    VERBATIM)
else()
  add_custom_command(OUTPUT ${ORRERY_VIEWER_ASSETS_CPP}
    COMMAND ${CMAKE_COMMAND} -DDIST= -DOUT=${ORRERY_VIEWER_ASSETS_CPP} -P ${embed_script}
    DEPENDS ${embed_script}
    COMMENT "viewer: front end not built (ORRERY_BUILD_VIEWER_FRONTEND=OFF or no npm)"
    VERBATIM)
endif()
add_custom_target(orrery_viewer_web DEPENDS ${ORRERY_VIEWER_ASSETS_CPP})
