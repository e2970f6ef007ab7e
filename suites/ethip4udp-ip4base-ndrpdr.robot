*** Settings ***
Documentation     ethip4udp-ip4base, NDRPDR.
...               IPv4 routing of UDP traffic: 1024 flows per direction (source address and port vary).
...               Finds NDR (zero loss) and PDR (loss ratio <= 0.5 %) with one search per frame size.
...               Any topology: ``robot --variable TOPOLOGY:<file> suites/ethip4udp-ip4base-ndrpdr.robot``.

Resource          ../resources/performance.resource

Suite Setup       Set Up Performance Suite
Suite Teardown    Tear Down Performance Suite
Test Template     NDRPDR Test

Test Tags         NDRPDR    ETH    IP4FWD    IP4BASE    UDP    ethip4udp-ip4base


*** Variables ***
${PROFILE}    ethip4udp-ip4base


*** Test Cases ***
64B-1c-ethip4udp-ip4base-ndrpdr
    [Tags]    64B    1C
    ${PROFILE}    frame_size=64    cores=1
1518B-1c-ethip4udp-ip4base-ndrpdr
    [Tags]    1518B    1C
    ${PROFILE}    frame_size=1518    cores=1
9000B-1c-ethip4udp-ip4base-ndrpdr
    [Tags]    9000B    1C
    ${PROFILE}    frame_size=9000    cores=1
IMIX-1c-ethip4udp-ip4base-ndrpdr
    [Tags]    IMIX    1C
    ${PROFILE}    frame_size=IMIX    cores=1
