# install.cmake: what `cmake --install` puts where. The commands parplan and
# iopddl, the manual page parplan(1), the headers under include/parplan/,
# both libraries, a pkg-config file (parplan.pc) and a CMake package
# (find_package(parplan) gives parplan::parplan, the shared library, and
# parplan::parplan_static when CBC, jansson and zlib are found to link it).
# The Python package's place is PP_PYTHON_INSTALL_DIR (the top CMakeLists.txt).
include(CMakePackageConfigHelpers)

install(TARGETS parplan_cli iopddl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The manual page is written from the built binary's help (cmake/parplan-man).
set(PP_MAN_PAGE ${CMAKE_CURRENT_BINARY_DIR}/parplan.1)
add_custom_command(OUTPUT ${PP_MAN_PAGE}
                   COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cmake/parplan-man $<TARGET_FILE:parplan_cli> ${PROJECT_VERSION}
                           ${PP_MAN_PAGE}
                   DEPENDS parplan_cli ${CMAKE_CURRENT_SOURCE_DIR}/cmake/parplan-man
                   COMMENT "Writing the manual page parplan(1) from parplan help")
add_custom_target(parplan_man ALL DEPENDS ${PP_MAN_PAGE})
install(FILES ${PP_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

set_target_properties(parplan_shared PROPERTIES EXPORT_NAME parplan)
set_target_properties(parplan PROPERTIES EXPORT_NAME parplan_static)
install(TARGETS parplan_shared EXPORT parplan-shared
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development)
install(TARGETS parplan EXPORT parplan-static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/parplan DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

set(PP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/parplan)
install(EXPORT parplan-shared NAMESPACE parplan:: FILE parplanTargets.cmake DESTINATION ${PP_CMAKE_DIR})
install(EXPORT parplan-static NAMESPACE parplan:: FILE parplanStaticTargets.cmake DESTINATION ${PP_CMAKE_DIR})
configure_package_config_file(cmake/parplanConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/parplanConfig.cmake
                              INSTALL_DESTINATION ${PP_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/parplanConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/parplanConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/parplanConfigVersion.cmake
        DESTINATION ${PP_CMAKE_DIR})

# The .pc file finds its prefix from where it lies (${pcfiledir}), so the
# tree works wherever `cmake --install --prefix` puts it.
set(PP_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH PP_PC_TO_PREFIX /root/${PP_PC_DIR} /root)
string(REGEX REPLACE "/$" "" PP_PC_TO_PREFIX "${PP_PC_TO_PREFIX}")
configure_file(cmake/parplan.pc.in ${CMAKE_CURRENT_BINARY_DIR}/parplan.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/parplan.pc DESTINATION ${PP_PC_DIR})
