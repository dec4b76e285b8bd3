# Installation layout and the Debian package (CPack DEB). Included from the top-level CMakeLists.
#   cmake --install build/release --prefix /usr        # bin/, share/applications, share/metainfo, icons
#   (cd build/release && cpack -G DEB)                  # hnclip-workbench_<version>_<arch>.deb
include(GNUInstallDirs)

set(HNCLIP_APP_ID "io.github.hnclip.Workbench")
set(_linux "${CMAKE_CURRENT_LIST_DIR}/linux")
set(_icons "${CMAKE_SOURCE_DIR}/resources/icons")

# Resources the programs read at run time (the pretrained tiny checkpoint, CLIP's BPE vocabulary
# with its MIT notice); workbench_paths.cpp looks for them at <prefix>/share/hnclip-workbench/resources.
install(DIRECTORY "${CMAKE_SOURCE_DIR}/resources/checkpoints"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/hnclip-workbench/resources")
install(FILES "${CMAKE_SOURCE_DIR}/resources/bpe_simple_vocab_16e6.txt.gz"
              "${CMAKE_SOURCE_DIR}/resources/bpe_simple_vocab_16e6.LICENSE"
              "${CMAKE_SOURCE_DIR}/resources/structxlip_words.txt"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/hnclip-workbench/resources")

if(HNCLIP_BUILD_GUI)
  install(FILES "${_linux}/${HNCLIP_APP_ID}.desktop" DESTINATION "${CMAKE_INSTALL_DATADIR}/applications")
  install(FILES "${_linux}/${HNCLIP_APP_ID}.metainfo.xml" DESTINATION "${CMAKE_INSTALL_DATADIR}/metainfo")
  install(FILES "${_icons}/${HNCLIP_APP_ID}.svg"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps")
  foreach(_size 16 32 48 64 128 256)
    install(FILES "${_icons}/${HNCLIP_APP_ID}-${_size}.png"
            DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/${_size}x${_size}/apps"
            RENAME "${HNCLIP_APP_ID}.png")
  endforeach()
endif()

set(CPACK_PACKAGE_NAME "hnclip-workbench")
set(CPACK_PACKAGE_VENDOR "HN-CLIP Workbench developers")
set(CPACK_PACKAGE_CONTACT "HN-CLIP Workbench developers <hnclip@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Fine-tune CLIP-style encoders on dense captions with hard-negative margins")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
# The shared libraries the programs link (LibTorch, OpenCV, SQLite, Qt 6, QCustomPlot) become
# dependencies through dpkg-shlibdeps; OpenBLAS's threaded build is loaded by LibTorch at run time
# and is added by hand (without it LibTorch falls back to the reference BLAS, ~57x slower).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libopenblas0-pthread")
# Debug info stays in the build tree: the packaged programs are stripped (134 MB -> a few MB each).
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR "DEB")
include(CPack)
