*** Settings ***
Documentation     eth-l2xcbase, MRR.
...               L2 cross-connect: each DUT port forwards what it receives to its other port.
...               Measures the maximum receive rate: trials at the traffic generator's maximum rate.
...               Any topology: ``robot --variable TOPOLOGY:<file> suites/eth-l2xcbase-mrr.robot``.

Resource          ../resources/performance.resource

Suite Setup       Set Up Performance Suite
Suite Teardown    Tear Down Performance Suite
Test Template     MRR Test

Test Tags         MRR    ETH    L2XCFWD    BASE    eth-l2xcbase


*** Variables ***
${PROFILE}    eth-l2xcbase


*** Test Cases ***
64B-1c-eth-l2xcbase-mrr
    [Tags]    64B    1C
    ${PROFILE}    frame_size=64    cores=1
1518B-1c-eth-l2xcbase-mrr
    [Tags]    1518B    1C
    ${PROFILE}    frame_size=1518    cores=1
9000B-1c-eth-l2xcbase-mrr
    [Tags]    9000B    1C
    ${PROFILE}    frame_size=9000    cores=1
IMIX-1c-eth-l2xcbase-mrr
    [Tags]    IMIX    1C
    ${PROFILE}    frame_size=IMIX    cores=1
