# What `cmake --install` puts where (GNUInstallDirs), the CMake version file,
# and the Debian packages `cpack -G DEB` builds from the same install rules
# (docs/install.md):
#   trnsim      the executable, the modules (lib/trnsim), libtrnsim, every
#               config, the man page, the docs and examples, the Python package
#   trnsim-dev  headers, pkg-config files, the CMake package (find_package)
# An install rule that names no COMPONENT goes into trnsim (the default
# component is set at the top of CMakeLists.txt); files for building against
# trnsim say COMPONENT dev.
include(CMakePackageConfigHelpers)

# find_package(trnsim 0.2): a 0.x release accepts requests for the same minor
# version (0.2 finds 0.2.x, not 0.1 or 0.3).
write_basic_package_version_file(${CMAKE_BINARY_DIR}/trnsimConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/trnsimConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/trnsim COMPONENT dev)

# Every stock config, the user docs and internals, the examples.
file(GLOB TRNSIM_CONFIG_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/config/*.cfg)
install(FILES ${TRNSIM_CONFIG_FILES} DESTINATION ${CMAKE_INSTALL_DATADIR}/trnsim)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# ---- cpack -G DEB ------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME trnsim)
set(CPACK_PACKAGE_VENDOR "trnsim")
set(CPACK_PACKAGE_CONTACT "trnsim maintainers <trnsim@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "bit-exact functional simulator for NeuronCore instruction families")
set(CPACK_PACKAGE_DESCRIPTION
  "trnsim runs programs of NeuronCore instructions (BIR) bit for bit as the reference simulator does: DMA, BatchNorm, RNG, DVE Max-8 search and collectives, each family a loadable module.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ${CMAKE_INSTALL_DEFAULT_COMPONENT_NAME} dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_TRNSIM_PACKAGE_NAME trnsim)
set(CPACK_DEBIAN_TRNSIM_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_TRNSIM_PACKAGE_RECOMMENDS "python3, python3-numpy")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME trnsim-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "trnsim (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_DEV_DESCRIPTION
  "Headers, pkg-config files and the CMake package (find_package(trnsim)) for writing trnsim modules and embedding libtrnsim.")
set(CPACK_COMPONENT_TRNSIM_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
include(CPack)
