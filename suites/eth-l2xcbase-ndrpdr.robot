*** Settings ***
Documentation     eth-l2xcbase, NDRPDR.
...               L2 cross-connect: each DUT port forwards what it receives to its other port.
...               Finds NDR (zero loss) and PDR (loss ratio <= 0.5 %) with one search per frame size.
...               Any topology: ``robot --variable TOPOLOGY:<file> suites/eth-l2xcbase-ndrpdr.robot``.

Resource          ../resources/performance.resource

Suite Setup       Set Up Performance Suite
Suite Teardown    Tear Down Performance Suite
Test Template     NDRPDR Test

Test Tags         NDRPDR    ETH    L2XCFWD    BASE    eth-l2xcbase


*** Variables ***
${PROFILE}    eth-l2xcbase


*** Test Cases ***
64B-1c-eth-l2xcbase-ndrpdr
    [Tags]    64B    1C
    ${PROFILE}    frame_size=64    cores=1
1518B-1c-eth-l2xcbase-ndrpdr
    [Tags]    1518B    1C
    ${PROFILE}    frame_size=1518    cores=1
9000B-1c-eth-l2xcbase-ndrpdr
    [Tags]    9000B    1C
    ${PROFILE}    frame_size=9000    cores=1
IMIX-1c-eth-l2xcbase-ndrpdr
    [Tags]    IMIX    1C
    ${PROFILE}    frame_size=IMIX    cores=1
