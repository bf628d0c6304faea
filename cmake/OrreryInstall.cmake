# `cmake --install`: a relocatable prefix laid out like an HPC tool.
#
#   bin/      orrery, orrery-analyze, orrery-instrument
#   lib/      liborrery-measure.so (bin/../lib: where `orrery run` and
#             `orrery-instrument` look for it, so the prefix can move),
#             cmake/Orrery/ (find_package(Orrery) -> Orrery::measure),
#             pkgconfig/orrery.pc, python3.X/site-packages/orrery
#   include/  orrery/orrery.h (the user region API)
#   share/doc/orrery/  README.md and docs/
#
# The viewer's front end is embedded in `orrery` (viewer/cmake/WebAssets.cmake),
# so there are no web assets to install. See docs/install.md.
include(CMakePackageConfigHelpers)

# Always lib/, never lib64/ or lib/<multiarch>: the programs find the
# measurement library at <dir of the program>/../lib.
set(ORRERY_INSTALL_LIBDIR lib)
set(ORRERY_INSTALL_CMAKEDIR ${ORRERY_INSTALL_LIBDIR}/cmake/Orrery)

install(TARGETS orrery orrery-analyze orrery-instrument
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

# The measurement library, exported for consumers as Orrery::measure.
target_include_directories(orrery-measure PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(orrery-measure PROPERTIES EXPORT_NAME measure)
install(TARGETS orrery-measure EXPORT OrreryTargets
  LIBRARY DESTINATION ${ORRERY_INSTALL_LIBDIR} COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/measure/lib/include/orrery/orrery.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/orrery COMPONENT development)
install(EXPORT OrreryTargets NAMESPACE Orrery:: FILE OrreryTargets.cmake
  DESTINATION ${ORRERY_INSTALL_CMAKEDIR} COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/OrreryConfig.cmake.in
  ${PROJECT_BINARY_DIR}/OrreryConfig.cmake INSTALL_DESTINATION ${ORRERY_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/OrreryConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/OrreryConfig.cmake ${PROJECT_BINARY_DIR}/OrreryConfigVersion.cmake
  DESTINATION ${ORRERY_INSTALL_CMAKEDIR} COMPONENT development)

# pkg-config: paths relative to the .pc file's own location (${pcfiledir}),
# so the prefix stays relocatable.
configure_file(${PROJECT_SOURCE_DIR}/cmake/orrery.pc.in ${PROJECT_BINARY_DIR}/orrery.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/orrery.pc
  DESTINATION ${ORRERY_INSTALL_LIBDIR}/pkgconfig COMPONENT development)

# The pure-Python package (python/orrery), importable with PYTHONPATH set to
# <prefix>/lib/python3.X/site-packages.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  set(ORRERY_INSTALL_PYTHONDIR
      ${ORRERY_INSTALL_LIBDIR}/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/site-packages)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/orrery DESTINATION ${ORRERY_INSTALL_PYTHONDIR}
    COMPONENT python FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
endif()

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT doc)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT doc)
