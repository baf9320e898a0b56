
C
xPlaceholder*
dtype0*$
shape:ÿÿÿÿÿÿÿÿÿ
>
bConst*%
valueB"§AÈ¿éWÊ>”æø?{LÈ¿*
dtype0
2
yBiasAddxb*
data_formatNHWC*
T0"ª